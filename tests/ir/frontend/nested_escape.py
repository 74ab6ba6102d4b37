# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[64, 128], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i in pl.range(4):
            c: pl.Scalar[pl.INDEX] = n + i
            d: pl.Scalar[pl.INDEX] = n + i
            for j in pl.range(2):
                e: pl.Scalar[pl.INDEX] = n + j
            f: pl.Scalar[pl.INDEX] = e + 1
        c: pl.Scalar[pl.INDEX] = 5
        if n > 1:
            g: pl.Scalar[pl.INDEX] = d + 1
        return c
