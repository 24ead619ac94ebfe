# tests/base/tests.mk — tests of base/ (libdh_base.a, linked statically: its symbols
# are hidden in libdevharness.so). base_text: the UTF-8 validator and the report-text
# cleaner (base/text.h).
$(eval $(call dh_test,base_text,tests/base/test_text.c,$(BASE_LIB) -lcmocka))
$(TESTDIR)/base_text: $(BASE_LIB)
