#ifndef DOSETAP_LIBFUZZER_H
#define DOSETAP_LIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (linked by -sanitize=fuzzer). SwiftPM names an executable's entry point itself, so the fuzz
/// build's entry point calls this instead of relying on libFuzzer's own main.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
