# pypto.program: WrongRuntime
# expect-status: rejected
# expect-runtime: tensormap_and_ringbuffer
# Step D: a Graph compiled for a runtime other than host_build_graph.
import pypto.language as pl

@pl.program
class WrongRuntime:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kcopy(a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t__ssa_v0, [0, 0], c__ssa_v0)
        return c__ssa_v0
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kadd(a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        u__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(c__ssa_v0, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        v__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(t__ssa_v0, u__ssa_v0)
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(v__ssa_v0, [0, 0], c__ssa_v0)
        return c__ssa_v0
    # expect: GB101
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kadd(a__ssa_v0, c__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
        return c__ssa_v1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for i__idx_v0, (c__iter_v1,) in pl.range(4, init_values=(c__ssa_v0,)):
            c__ssa_v3: pl.Tensor[[128, 128], pl.FP32] = self.layer(a__ssa_v0, c__iter_v1, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
            c__rv_v2: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(c__ssa_v3)
        return c__rv_v2
