// Tests that spmd.mesh round-trips.
// RUN: spmd-opt %s | FileCheck %s
// RUN: spmd-opt %s --verify-roundtrip -o /dev/null

// CHECK: spmd.mesh @mesh = <["data"=2, "model"=4]>
spmd.mesh @mesh = <["data"=2, "model"=4]>
// CHECK: spmd.mesh @perm = <["x"=2, "y"=2], device_ids=[0, 2, 1, 3]>
spmd.mesh @perm = <["x"=2, "y"=2], device_ids=[0, 2, 1, 3]>
// Axis names are strings: any spelling survives the round trip.
// CHECK: spmd.mesh @odd = <["with space"=1, "a\22quote"=3]>
spmd.mesh @odd = <["with space"=1, "a\"quote"=3]>
// A mesh of no axes is one device.
// CHECK: spmd.mesh @single = <[]>
spmd.mesh @single = <[]>
// Iota device ids are the default and are not printed.
// CHECK: spmd.mesh @iota = <["x"=4]>
spmd.mesh @iota = <["x"=4], device_ids=[0, 1, 2, 3]>
