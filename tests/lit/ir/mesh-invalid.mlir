// Tests that spmd.mesh's verifier explains each error.
// RUN: spmd-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{invalid mesh: mesh axis "a" has size 0; sizes must be >= 1}}
spmd.mesh @m = <["a"=0]>

// -----

// expected-error @+1 {{invalid mesh: mesh axis "a" has size -2}}
spmd.mesh @m = <["a"=-2]>

// -----

// expected-error @+1 {{invalid mesh: mesh axis "a" is declared twice}}
spmd.mesh @m = <["a"=2, "b"=2, "a"=2]>

// -----

// expected-error @+1 {{invalid mesh: mesh has more than 16777216 devices}}
spmd.mesh @m = <["a"=65536, "b"=65536]>

// -----

// expected-error @+1 {{invalid mesh: mesh axis names must be non-empty}}
spmd.mesh @m = <[""=2]>

// -----

// expected-error @+1 {{device_ids is not a permutation: device 1 appears twice}}
spmd.mesh @m = <["a"=2, "b"=2], device_ids=[0, 1, 1, 3]>

// -----

// expected-error @+1 {{device_ids has 3 entries but the mesh has 4 devices}}
spmd.mesh @m = <["a"=4], device_ids=[0, 1, 2]>

// -----

// expected-error @+1 {{device_ids entry 4 is out of range [0, 4)}}
spmd.mesh @m = <["a"=4], device_ids=[0, 1, 2, 4]>

// -----

// expected-error @+1 {{expected 'device_ids'}}
spmd.mesh @m = <["a"=4], ids=[0, 1, 2, 3]>

// -----

// expected-error @+1 {{expected integer value}}
spmd.mesh @m = <["a"=x]>

// -----

// expected-note @+1 {{see existing symbol definition here}}
spmd.mesh @m = <["a"=2]>
// expected-error @+1 {{redefinition of symbol named 'm'}}
spmd.mesh @m = <["b"=2]>
