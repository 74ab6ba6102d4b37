# pypto.program: CarriedHoistedView
import pypto.language as pl

@pl.program
class CarriedHoistedView:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[128, 128], pl.FP32], dst: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], r: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        return dst
    @pl.function(type=pl.FunctionType.Graph)
    def g(self, a: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], batch: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        v: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.slice(a, [128, 128], [0, 0])
        for i in pl.range(2):
            c: pl.Tensor[[128, 128], pl.FP32] = self.k(v, c, i)
            v: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.slice(a, [128, 128], [batch, 0])
        return c
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], m: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        c: pl.Tensor[[128, 128], pl.FP32] = self.g(a, c, m)
        return c
