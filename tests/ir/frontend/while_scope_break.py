# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[64, 128], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        b: pl.Scalar[pl.INDEX] = n * 2
        while b < 10:
            b: pl.Scalar[pl.INDEX] = b + 1
        with pl.at(level=pl.Level.CORE_GROUP) as tid:
            b: pl.Scalar[pl.INDEX] = b + 3
        for i in pl.range(4):
            if i > 2:
                break
            b: pl.Scalar[pl.INDEX] = b + i
        return b
