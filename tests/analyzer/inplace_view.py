# pypto.program: InPlaceView
import pypto.language as pl

@pl.program
class InPlaceView:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def fill(y__ssa_v0: pl.Out[pl.Tensor[[1024, 128], pl.FP32]]) -> pl.Tensor[[1024, 128], pl.FP32]:
        return y__ssa_v0
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def use(v__ssa_v0: pl.Tensor[[64, 128], pl.FP32], d__ssa_v0: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        return d__ssa_v0
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def g(self, y__ssa_v0: pl.InOut[pl.Tensor[[1024, 128], pl.FP32]], d__ssa_v0: pl.InOut[pl.Tensor[[64, 128], pl.FP32]], idx__ssa_v0: pl.Scalar[pl.INDEX]) -> pl.Tensor[[1024, 128], pl.FP32]:
        y__ssa_v1: pl.Tensor[[1024, 128], pl.FP32] = self.fill(y__ssa_v0, attrs={"arg_directions": [pl.adir.inout]})
        yy__ssa_v0: pl.Tensor[[1024, 128], pl.FP32] = y__ssa_v1
        off__ssa_v0: pl.Scalar[pl.INDEX] = idx__ssa_v0 * 64
        yv__ssa_v0: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.slice(yy__ssa_v0, [64, 128], [off__ssa_v0, 0])
        d__ssa_v1: pl.Tensor[[64, 128], pl.FP32] = self.use(yv__ssa_v0, d__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
        for k__idx_v0 in pl.range(4):
            kv__ssa_v0: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.slice(y__ssa_v1, [64, 128], [k__idx_v0 * 64, 0])
            d__ssa_v2: pl.Tensor[[64, 128], pl.FP32] = self.use(kv__ssa_v0, d__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
        return y__ssa_v1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, y__ssa_v0: pl.InOut[pl.Tensor[[1024, 128], pl.FP32]], d__ssa_v0: pl.InOut[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[1024, 128], pl.FP32]:
        y__ssa_v1: pl.Tensor[[1024, 128], pl.FP32] = self.g(y__ssa_v0, d__ssa_v0, 3, attrs={"arg_directions": [pl.adir.inout, pl.adir.inout, pl.adir.scalar]})
        return y__ssa_v1
