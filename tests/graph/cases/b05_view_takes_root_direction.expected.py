# pypto.program: ViewDirection
# expect-status: rewritten
# Step B: a hoisted view of an InOut parameter is an InOut parameter (pl.adir.inout at the call).
import pypto.language as pl

@pl.program
class ViewDirection:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kadd(a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        u__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(c__ssa_v0, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        v__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(t__ssa_v0, u__ssa_v0)
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(v__ssa_v0, [0, 0], c__ssa_v0)
        return c__ssa_v0
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], out__ssa_v0: pl.InOut[pl.Tensor[[512, 128], pl.FP32]], idx__ssa_v0: pl.Scalar[pl.INDEX], ov__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        ov__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kadd(a__ssa_v0, ov__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
        return out__ssa_v0
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], out__ssa_v0: pl.InOut[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        for i__idx_v0, (out__iter_v1,) in pl.range(4, init_values=(out__ssa_v0,)):
            ov__graph_arg0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.slice(out__iter_v1, [128, 128], [i__idx_v0 * 128, 0])
            out__ssa_v3: pl.Tensor[[512, 128], pl.FP32] = self.layer(a__ssa_v0, out__iter_v1, i__idx_v0, ov__graph_arg0, attrs={"arg_directions": [pl.adir.input, pl.adir.inout, pl.adir.scalar, pl.adir.inout]})
            out__rv_v2: pl.Tensor[[512, 128], pl.FP32] = pl.yield_(out__ssa_v3)
        return out__rv_v2
