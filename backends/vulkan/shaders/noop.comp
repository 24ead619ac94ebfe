#version 450
// devharness vulkan backend: the empty kernel ("noop"), dispatched as 1 workgroup.
layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;
void main() {}
