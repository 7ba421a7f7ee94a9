/* Mutexes locked by another library's constructor, run before or after the
 * interposer's (run_tests.sh puts ctor_lib.so first or second in LD_PRELOAD). */
#define _GNU_SOURCE
#include <pthread.h>

#include "check.h"

int main(void)
{
    require_interposed((void *)pthread_mutex_lock);
    int *result = (int *)dlsym(RTLD_DEFAULT, "ctor_lib_result");
    CHECK(result != NULL);
    if (result)
        CHECK_EQ(*result, 0);
    return test_done("test_preconstructor");
}
