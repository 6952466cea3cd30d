// Declarations only (include/libfuzzer.h); the driver itself comes from libFuzzer in the fuzz build.
#include "libfuzzer.h"
