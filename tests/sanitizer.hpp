// HWPC_TEST_UNDER_ASAN: this test binary is built with AddressSanitizer.
// g++ defines __SANITIZE_ADDRESS__; clang says so through __has_feature.
// Memory bounds are not checked there: the sanitizer's shadow memory and
// quarantine would be measured, not hwpc (the regular build checks them).
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define HWPC_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HWPC_TEST_UNDER_ASAN 1
#endif
#endif
