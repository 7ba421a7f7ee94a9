/* ll_version: the library's version (locklab/version.h, generated from CMakeLists.txt). */
#include "locklab/locklab.h"
#include "locklab/version.h"

const char *ll_version(void) { return LOCKLAB_VERSION; }
