# pypto.program: UnannotatedTupleLaunch
# expect-status: rewritten
# `buf_1, t0 = pl.submit(...)` unpacks a launch without a type annotation (Python has none for a tuple
# target): the pass never hoists a launch's results, and their types are the callee's return type and
# a TaskId, so no annotation is needed. The returned `buf_2` is an in-place rebind of `buf` through both
# submits, and `base` is hoisted as usual.
import pypto.language as pl

@pl.program
class UnannotatedTupleLaunch:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def scale(buf: pl.InOut[pl.Tensor[[1024, 128], pl.FP32]], row: pl.Scalar[pl.INDEX]) -> pl.Tensor[[1024, 128], pl.FP32]:
        t: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(buf, [row, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        buf_1: pl.Tensor[[1024, 128], pl.FP32] = pl.tile.store(t, [row, 0], buf)
        return buf
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, buf: pl.InOut[pl.Tensor[[1024, 128], pl.FP32]], idx: pl.Scalar[pl.INDEX]) -> pl.Tensor[[1024, 128], pl.FP32]:
        base: pl.Scalar[pl.INDEX] = idx * 128
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            buf_1, t0 = pl.submit(self.scale, buf, base, attrs={"arg_directions": [pl.adir.inout, pl.adir.scalar]})
            buf_2, t1 = pl.submit(self.scale, buf_1, idx, deps=[t0], attrs={"arg_directions": [pl.adir.inout, pl.adir.scalar]})
        return buf_2
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, buf: pl.InOut[pl.Tensor[[1024, 128], pl.FP32]]) -> pl.Tensor[[1024, 128], pl.FP32]:
        for i, (buf_it,) in pl.range(4, init_values=(buf,)):
            buf_3: pl.Tensor[[1024, 128], pl.FP32] = self.layer(buf_it, i, attrs={"arg_directions": [pl.adir.inout, pl.adir.scalar]})
            buf_rv: pl.Tensor[[1024, 128], pl.FP32] = pl.yield_(buf_3)
        return buf_rv
