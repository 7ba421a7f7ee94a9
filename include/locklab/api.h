/* Symbol visibility and linkage of the public API.
 *
 * The library is compiled with -fvisibility=hidden: only what the public
 * headers (include/locklab/) declare between LL_API_BEGIN and LL_API_END is
 * exported; every helper the sources share among themselves stays internal.
 * tests/test_exports.sh checks the dynamic symbol table against the headers.
 * In C++ the same pair opens and closes extern "C", so a header needs no
 * __cplusplus block of its own. */
#ifndef LOCKLAB_API_H
#define LOCKLAB_API_H
#ifdef __cplusplus
#define LL_API_BEGIN extern "C" { _Pragma("GCC visibility push(default)")
#define LL_API_END _Pragma("GCC visibility pop") }
#else
#define LL_API_BEGIN _Pragma("GCC visibility push(default)")
#define LL_API_END _Pragma("GCC visibility pop")
#endif
#endif
