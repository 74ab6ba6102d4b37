# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[64, 128], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        n: pl.Scalar[pl.INDEX] = n
        if n > 0:
            w: pl.Scalar[pl.INDEX] = n + 1
        for i, (acc,) in pl.range(4, init_values=(n,)):
            acc2: pl.Scalar[pl.INDEX] = acc + i
            n: pl.Scalar[pl.INDEX] = n + 1
            accr: pl.Scalar[pl.INDEX] = pl.yield_(acc2)
        m: pl.Scalar[pl.INDEX] = accr + w
        return m
