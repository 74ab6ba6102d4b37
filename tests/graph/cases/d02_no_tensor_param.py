# pypto.program: NoTensor
# expect-status: rejected
# Step D: a Graph with no tensor parameter has nothing to patch on replay.
import pypto.language as pl

@pl.program
class NoTensor:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def knop(k__ssa_v0: pl.Scalar[pl.INDEX]):
        pass
    # expect: GB102
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, k__ssa_v0: pl.Scalar[pl.INDEX]):
        self.knop(k__ssa_v0, attrs={"arg_directions": [pl.adir.scalar]})
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, k__ssa_v0: pl.Scalar[pl.INDEX]):
        self.layer(k__ssa_v0, attrs={"arg_directions": [pl.adir.scalar]})
