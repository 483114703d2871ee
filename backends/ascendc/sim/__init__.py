"""CPU emulator for generated Ascend C: compiles the project's host tiling and kernel against
headers that mirror CANN's, runs them per block index and checks pipe synchronisation.

    from backends.ascendc.sim import simulate_project, SimResult
"""

from .driver import SimResult, simulate_project

__all__ = ["SimResult", "simulate_project"]
