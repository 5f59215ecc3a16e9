#include "lib.h"

LIB_NS_BEGIN

LIB_API_FN int twice(int x) { return 2 * x; }

LIB_NS_END

LIB_EXPORT(int) lib_version() {
    LIB_TRY
        return 2;
    LIB_CATCH
}

LIB_EXPORT(const char*) lib_name(int code) { return code == 2 ? "two" : "other"; }

#include <cstddef>
static_assert(sizeof(Wire) == 2 * sizeof(int), "Wire is sent as two ints");
static_assert(offsetof(Wire, len) == sizeof(int), "len follows kind");
int wire_total() {
    Wire w;
    return w.total();
}
