#include "lib.h"

using namespace outer;

int inner::Counter::bump() { return ++n; }

int inner::Counter::twice() { return bump() + bump(); }

int outer::helper(int x) { return x + 1; }
