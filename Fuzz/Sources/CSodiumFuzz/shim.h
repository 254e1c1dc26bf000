#ifndef COMPANION_CSODIUM_SHIM_H
#define COMPANION_CSODIUM_SHIM_H
#include <sodium.h>
#endif
