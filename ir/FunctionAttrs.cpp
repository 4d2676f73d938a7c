//===- FunctionAttrs.cpp - Argument and result attributes in bulk ---------===//

#include "ir/FunctionAttrs.h"

using namespace mlir;

void mlir::spmd::updateArgAttrs(
    func::FuncOp function,
    function_ref<void(unsigned, NamedAttrList &)> update) {
  SmallVector<DictionaryAttr> dicts;
  for (unsigned i = 0; i < function.getNumArguments(); ++i) {
    NamedAttrList attrs(function.getArgAttrDict(i));
    update(i, attrs);
    dicts.push_back(attrs.getDictionary(function.getContext()));
  }
  function.setAllArgAttrs(dicts);
}

void mlir::spmd::updateResultAttrs(
    func::FuncOp function,
    function_ref<void(unsigned, NamedAttrList &)> update) {
  SmallVector<DictionaryAttr> dicts;
  for (unsigned i = 0; i < function.getNumResults(); ++i) {
    NamedAttrList attrs(function.getResultAttrDict(i));
    update(i, attrs);
    dicts.push_back(attrs.getDictionary(function.getContext()));
  }
  function.setAllResultAttrs(dicts);
}
