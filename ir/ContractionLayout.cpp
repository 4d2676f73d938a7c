//===- ContractionLayout.cpp - A contraction's operands as GEMM matrices --===//

#include "ir/ContractionLayout.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::spmd;

std::optional<int64_t> Packing::mergedStride(unsigned begin,
                                             unsigned end) const {
  std::optional<int64_t> stride;
  int64_t expected = 0;
  for (unsigned i = end; i-- > begin;) {
    if (sizes[i] == 1)
      continue;
    if (stride && strides[i] != expected)
      return std::nullopt;
    if (!stride)
      stride = strides[i];
    expected = strides[i] * sizes[i];
  }
  return stride.value_or(0);
}

std::optional<MatrixLayout> Packing::matrix(int64_t rows, int64_t cols) const {
  std::optional<int64_t> rowStride =
      mergedStride(batchLoops, batchLoops + rowLoops);
  std::optional<int64_t> colStride =
      mergedStride(batchLoops + rowLoops, sizes.size());
  if (!rowStride || !colStride)
    return std::nullopt;
  if (cols == 1 || *colStride == 1)
    return MatrixLayout{rows == 1 ? cols : *rowStride, false};
  if (rows == 1 || *rowStride == 1)
    return MatrixLayout{*colStride, true};
  return std::nullopt;
}

int64_t Packing::batchOffset(int64_t b) const {
  int64_t offset = 0;
  for (unsigned i = batchLoops; i-- > 0;) {
    offset += b % sizes[i] * strides[i];
    b /= sizes[i];
  }
  return offset;
}

int64_t Packing::elements() const {
  int64_t count = 1;
  for (int64_t s : sizes)
    count *= s;
  return count;
}

std::optional<Contraction>
mlir::spmd::contractionLayout(linalg::LinalgOp op,
                              ArrayRef<ArrayRef<int64_t>> operandShapes) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      operandShapes.size() != 3)
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!llvm::all_of(maps,
                    [](AffineMap m) { return m.isProjectedPermutation(); }))
    return std::nullopt;
  // Each loop's size, from the operands that read it.
  SmallVector<int64_t> ranges(op.getNumLoops(), ShapedType::kDynamic);
  for (auto [map, shape] : llvm::zip_equal(maps, operandShapes)) {
    if (shape.size() != map.getNumResults())
      return std::nullopt;
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      ranges[map.getDimPosition(r)] = shape[r];
  }
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  // Every loop is of exactly one kind, used by exactly the operands of its
  // kind (a loop only A reads would be a sum the GEMM does not do).
  auto iterators = op.getIteratorTypesArray();
  auto uses = [&](ArrayRef<unsigned> loops, bool inA, bool inB, bool inC,
                  utils::IteratorType kind) {
    return llvm::all_of(loops, [&](unsigned l) {
      return maps[0].isFunctionOfDim(l) == inA &&
             maps[1].isFunctionOfDim(l) == inB &&
             maps[2].isFunctionOfDim(l) == inC && iterators[l] == kind;
    });
  };
  auto parallel = utils::IteratorType::parallel;
  if (dims->batch.size() + dims->m.size() + dims->n.size() + dims->k.size() !=
          ranges.size() ||
      !uses(dims->batch, true, true, true, parallel) ||
      !uses(dims->m, true, false, true, parallel) ||
      !uses(dims->n, false, true, true, parallel) ||
      !uses(dims->k, true, true, false, utils::IteratorType::reduction))
    return std::nullopt;
  // An operand's element stride for each loop of `groups`, in order.
  auto view = [&](unsigned operand,
                  std::initializer_list<ArrayRef<unsigned>> groups) {
    AffineMap map = maps[operand];
    ArrayRef<int64_t> shape = operandShapes[operand];
    std::vector<int64_t> perLoop(ranges.size(), 0);
    int64_t stride = 1;
    for (int64_t r = int64_t(map.getNumResults()) - 1; r >= 0; --r) {
      perLoop[map.getDimPosition(r)] = stride;
      stride *= shape[r];
    }
    Packing p;
    for (ArrayRef<unsigned> group : groups)
      for (unsigned loop : group) {
        p.sizes.push_back(ranges[loop]);
        p.strides.push_back(perLoop[loop]);
      }
    p.batchLoops = dims->batch.size();
    return p;
  };
  Contraction c;
  for (unsigned l : dims->batch)
    c.batch *= ranges[l];
  for (unsigned l : dims->m)
    c.m *= ranges[l];
  for (unsigned l : dims->n)
    c.n *= ranges[l];
  for (unsigned l : dims->k)
    c.k *= ranges[l];
  c.a = view(0, {dims->batch, dims->m, dims->k});
  c.b = view(1, {dims->batch, dims->k, dims->n});
  c.c = view(2, {dims->batch, dims->m, dims->n});
  c.a.rowLoops = c.c.rowLoops = dims->m.size();
  c.b.rowLoops = dims->k.size();
  c.isF32 = getElementTypeOrSelf(op.getDpsInits()[0].getType()).isF32();
  return c;
}

std::optional<Contraction> mlir::spmd::contractionLayout(linalg::LinalgOp op) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value operand : op->getOperands()) {
    auto tensor = dyn_cast<RankedTensorType>(operand.getType());
    if (!tensor)
      return std::nullopt;
    shapes.push_back(tensor.getShape());
  }
  return contractionLayout(op, shapes);
}
