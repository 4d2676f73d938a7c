func.func @f(%a: f32) -> tensor<99999999999xf32> {
  %t = tensor.from_elements %a : tensor<99999999999xf32>
  return %t : tensor<99999999999xf32>
}
