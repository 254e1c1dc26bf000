#ifndef COMPANION_CZLIB_SHIM_H
#define COMPANION_CZLIB_SHIM_H
#include <zlib.h>
#endif
