# tests/cmdline/tests.mk — what every command shares (cmdline/): the one --device option
# with one message per bad spec in every command that takes it (device_option.t).
TEST_SCRIPTS += tests/cmdline/device_option.t
