/*
 * tests/dh_assert.h — cmocka assertions on devharness errors (devharness/error.h), shared
 * by the unit tests. Include after <cmocka.h>. Header-only macros; each evaluates `rc`
 * once and reads the calling thread's last error.
 */
#ifndef DEVHARNESS_TESTS_DH_ASSERT_H_
#define DEVHARNESS_TESTS_DH_ASSERT_H_

#include <string.h>

#include "devharness/error.h"

/* Asserts that a call returned -1 and left the error kind `kind` ("ValueError", ...). */
#define assert_dh_error(rc, kind)                 \
  do {                                            \
    assert_int_equal((rc), -1);                   \
    assert_non_null(dh_error_kind());             \
    assert_string_equal(dh_error_kind(), (kind)); \
  } while (0)

/* Asserts that a call returned -1 with error kind `kind` and a message containing
 * `part`; the failure message shows the kind and message it got. */
#define assert_dh_error_msg(rc, kind, part)                                            \
  do {                                                                                 \
    int dh_rc_ = (rc);                                                                 \
    if (dh_rc_ != -1) fail_msg("expected an error, got %d", dh_rc_);                   \
    if (strcmp(dh_error_kind() ? dh_error_kind() : "", (kind)) != 0 ||                 \
        strstr(dh_error_message(), (part)) == NULL)                                    \
      fail_msg("expected %s containing '%s', got %s: %s", (kind), (part),              \
               dh_error_kind() ? dh_error_kind() : "(none)", dh_error_message());      \
  } while (0)

#endif /* DEVHARNESS_TESTS_DH_ASSERT_H_ */
