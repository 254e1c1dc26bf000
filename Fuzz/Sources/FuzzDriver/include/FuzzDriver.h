#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry for programs that own `main`. SwiftPM links an executable target with
/// `main=<Module>_main`, so each target defines `<Module>_main` and hands its per-input function here.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
