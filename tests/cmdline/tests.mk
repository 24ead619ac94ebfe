# tests/cmdline/tests.mk — what every command shares (cmdline/): the one --device option
# with one message per bad spec in every command that takes it (device_option.t); the
# device-option group the backends declare, offered and handed on by every command
# that selects devices (device_group.t).
TEST_SCRIPTS += tests/cmdline/device_option.t tests/cmdline/device_group.t
