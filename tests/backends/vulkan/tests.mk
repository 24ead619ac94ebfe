# tests/backends/vulkan/tests.mk — tests of the Vulkan backend (run with the Khronos
# validation layer: DEVHARNESS_VK_VALIDATION=1, set by the programs themselves).
#   test_vulkan             cmocka (TAP): attributes, memory, round trips with offsets,
#                           stream order, sync_stream_from_to, fill/noop, timestamps,
#                           raw twin, zero validation errors
#   vulkaninfo_compare.py   compares what devharness reports with `vulkaninfo --text`
#   stage_threshold.sh      DEVHARNESS_VULKAN_STAGE_PINNED_MAX: a bad value is no device
#                           with the reason; at 0 and 1 GiB the copy clauses pass
$(eval $(call dh_test,test_vulkan,tests/backends/vulkan/test_vulkan.c,-ldl -lcmocka))
$(TESTDIR)/test_vulkan: $(PLUGINDIR)/libdevharness_vulkan.so
TEST_SCRIPTS += tests/backends/vulkan/vulkaninfo_compare.py
TEST_SCRIPTS += tests/backends/vulkan/stage_threshold.sh
