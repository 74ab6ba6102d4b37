# pypto.program: AliasRootRebound
import pypto.language as pl

@pl.program
class AliasRootRebound:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[512, 128], pl.FP32], dst: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], r: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        return dst
    @pl.function(type=pl.FunctionType.Graph)
    def g(self, a: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], batch: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        a: pl.Tensor[[512, 128], pl.FP32] = a
        n: pl.Scalar[pl.INDEX] = batch
        batch: pl.Scalar[pl.INDEX] = batch + 1
        c: pl.Tensor[[128, 128], pl.FP32] = self.k(a, c, n)
        c: pl.Tensor[[128, 128], pl.FP32] = self.k(a, c, batch)
        for i in pl.range(2):
            v: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.slice(a, [128, 128], [n, 0])
            c: pl.Tensor[[128, 128], pl.FP32] = self.k(v, c, i)
        return c
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], m: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        for j in pl.range(3):
            c: pl.Tensor[[128, 128], pl.FP32] = self.g(a, c, j)
        c: pl.Tensor[[128, 128], pl.FP32] = self.g(a, c, m)
        return c
