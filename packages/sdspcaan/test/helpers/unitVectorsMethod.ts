/**
 * A method for tests that stand in for a plug-in's: its fit makes W the first k unit
 * vectors (nothing to compute), under the name and display name given.
 */
import { Estimator, Matrix, type TrainingData } from "sdspcaan";
import { type CoreFitResult, defineMethod, type MethodDescriptor } from "sdspcaan/methods";

const OPTIONS = { k: { type: "integer", min: 1, default: 2, doc: "Components." } } as const;

/** The declaration of such a method; `create` makes its models. */
export function unitVectorsMethod(
  name: string,
  displayName: string,
): MethodDescriptor<typeof OPTIONS> {
  class UnitVectors extends Estimator<{ k: number }> {
    constructor(options: Partial<{ k: number }> = {}) {
      super(DESCRIPTOR, options);
    }
    protected fitCore(data: TrainingData): CoreFitResult {
      return {
        components: Matrix.identity(data.d, this.params.k),
        iterations: 0,
        converged: true,
        stopReason: "closed-form",
        solver: "test",
      };
    }
  }
  const DESCRIPTOR = defineMethod({
    name,
    displayName,
    summary: "A test method: the first k unit vectors.",
    supervised: false,
    options: OPTIONS,
    create: (options) => new UnitVectors(options),
  });
  return DESCRIPTOR;
}
