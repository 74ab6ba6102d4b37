# pypto.program: HostLoopAlias
# expect-status: rejected
# Host control: a loop-carried alias of a host control tensor passed to a device kernel.
import pypto.language as pl

@pl.program
class HostLoopAlias:
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
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kflag(f__ssa_v0: pl.Tensor[[4], pl.INT32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        return c__ssa_v0
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kadd(a__ssa_v0, c__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
        return c__ssa_v1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], flags__ssa_v0: pl.Tensor[[4], pl.INT32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        n__ssa_v0: pl.Scalar[pl.INT32] = pl.tensor.read(flags__ssa_v0, [0])
        for j__idx_v0, (f__iter_v1, c__iter_v1) in pl.range(2, init_values=(flags__ssa_v0, c__ssa_v0)):
            # expect: HC201
            c__ssa_v2: pl.Tensor[[128, 128], pl.FP32] = self.kflag(f__iter_v1, c__iter_v1, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
            f__rv_v2, c__rv_v2 = pl.yield_(f__iter_v1, c__ssa_v2)
        c__ssa_v3: pl.Tensor[[128, 128], pl.FP32] = self.layer(a__ssa_v0, c__rv_v2, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
        return c__ssa_v3
