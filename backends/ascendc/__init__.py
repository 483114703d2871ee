"""Ascend C backend: kernel, host tiling and project emission, plus the CPU emulator (``sim``)."""
