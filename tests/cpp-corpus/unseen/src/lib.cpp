#include "lib.h"

LIB_NS_BEGIN

LIB_API_FN int twice(int x) { return 2 * x; }

LIB_NS_END
