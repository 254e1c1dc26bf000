#ifndef COMPANION_CSQLITE_SHIM_H
#define COMPANION_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
