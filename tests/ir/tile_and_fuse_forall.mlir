// Tile-and-fuse into scf.forall (issue #16's fifth pipeline), for tests/ir/run_catalogue.py:
//   mlir-opt-19 --transform-preload-library=transform-library-paths=THIS --transform-interpreter
// For every all-parallel linalg.generic / linalg.add one of whose inputs is a weight-gradient
// contraction (matmul_transpose_a, batch_matmul_transpose_a, or matmul): tile it into an
// scf.forall by 32x32 (1x32x32 for a grouped, rank-3 one) and fuse the contraction into the loop (its tile: slices of X and dY along
// the non-K axes, K whole), then the contraction's init (the fill) and, for linalg.matmul, the
// transpose feeding it. A consumer of any other kind is left as it is.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @match_input0_rank2(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_op) {
    transform.match.operation_name %op ["linalg.generic", "linalg.add"] : !transform.any_op
    %p = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %want = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %want : !transform.param<i64>
      %in = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_op
      transform.match.structured.yield %in : !transform.any_op
    }
    transform.match.operation_name %p ["linalg.matmul_transpose_a", "linalg.batch_matmul_transpose_a", "linalg.matmul"] : !transform.any_op
    transform.yield %op, %p : !transform.any_op, !transform.any_op
  }
  transform.named_sequence @match_input1_rank2(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_op) {
    transform.match.operation_name %op ["linalg.generic", "linalg.add"] : !transform.any_op
    %p = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %want = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %want : !transform.param<i64>
      %in = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_op
      transform.match.structured.yield %in : !transform.any_op
    }
    transform.match.operation_name %p ["linalg.matmul_transpose_a", "linalg.batch_matmul_transpose_a", "linalg.matmul"] : !transform.any_op
    transform.yield %op, %p : !transform.any_op, !transform.any_op
  }
  transform.named_sequence @match_input2_rank2(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_op) {
    transform.match.operation_name %op ["linalg.generic", "linalg.add"] : !transform.any_op
    %p = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %want = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %want : !transform.param<i64>
      %in = transform.match.structured.input %s[2] : (!transform.any_op) -> !transform.any_op
      transform.match.structured.yield %in : !transform.any_op
    }
    transform.match.operation_name %p ["linalg.matmul_transpose_a", "linalg.batch_matmul_transpose_a", "linalg.matmul"] : !transform.any_op
    transform.yield %op, %p : !transform.any_op, !transform.any_op
  }
  transform.named_sequence @match_input3_rank2(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_op) {
    transform.match.operation_name %op ["linalg.generic", "linalg.add"] : !transform.any_op
    %p = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %want = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %want : !transform.param<i64>
      %in = transform.match.structured.input %s[3] : (!transform.any_op) -> !transform.any_op
      transform.match.structured.yield %in : !transform.any_op
    }
    transform.match.operation_name %p ["linalg.matmul_transpose_a", "linalg.batch_matmul_transpose_a", "linalg.matmul"] : !transform.any_op
    transform.yield %op, %p : !transform.any_op, !transform.any_op
  }
  transform.named_sequence @match_input0_rank3(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_op) {
    transform.match.operation_name %op ["linalg.generic", "linalg.add"] : !transform.any_op
    %p = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %want = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %want : !transform.param<i64>
      %in = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_op
      transform.match.structured.yield %in : !transform.any_op
    }
    transform.match.operation_name %p ["linalg.matmul_transpose_a", "linalg.batch_matmul_transpose_a", "linalg.matmul"] : !transform.any_op
    transform.yield %op, %p : !transform.any_op, !transform.any_op
  }
  transform.named_sequence @match_input1_rank3(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_op) {
    transform.match.operation_name %op ["linalg.generic", "linalg.add"] : !transform.any_op
    %p = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %want = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %want : !transform.param<i64>
      %in = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_op
      transform.match.structured.yield %in : !transform.any_op
    }
    transform.match.operation_name %p ["linalg.matmul_transpose_a", "linalg.batch_matmul_transpose_a", "linalg.matmul"] : !transform.any_op
    transform.yield %op, %p : !transform.any_op, !transform.any_op
  }
  transform.named_sequence @match_input2_rank3(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_op) {
    transform.match.operation_name %op ["linalg.generic", "linalg.add"] : !transform.any_op
    %p = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %want = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %want : !transform.param<i64>
      %in = transform.match.structured.input %s[2] : (!transform.any_op) -> !transform.any_op
      transform.match.structured.yield %in : !transform.any_op
    }
    transform.match.operation_name %p ["linalg.matmul_transpose_a", "linalg.batch_matmul_transpose_a", "linalg.matmul"] : !transform.any_op
    transform.yield %op, %p : !transform.any_op, !transform.any_op
  }
  transform.named_sequence @match_input3_rank3(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_op) {
    transform.match.operation_name %op ["linalg.generic", "linalg.add"] : !transform.any_op
    %p = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %want = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %want : !transform.param<i64>
      %in = transform.match.structured.input %s[3] : (!transform.any_op) -> !transform.any_op
      transform.match.structured.yield %in : !transform.any_op
    }
    transform.match.operation_name %p ["linalg.matmul_transpose_a", "linalg.batch_matmul_transpose_a", "linalg.matmul"] : !transform.any_op
    transform.yield %op, %p : !transform.any_op, !transform.any_op
  }
  transform.named_sequence @tile_and_fuse_rank2(%c: !transform.any_op {transform.consumed}, %m: !transform.any_op {transform.consumed}) {
    %t, %forall = transform.structured.tile_using_forall %c tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %f, %nf = transform.structured.fuse_into_containing_op %m into %forall : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.foreach %f : !transform.any_op {
    ^bb2(%ff: !transform.any_op):
      transform.sequence %ff : !transform.any_op failures(suppress) {
      ^bb3(%x: !transform.any_op):
        %p = transform.get_producer_of_operand %x[2] : (!transform.any_op) -> !transform.any_op
        transform.match.operation_name %p ["linalg.fill"] : !transform.any_op
        %f2, %nf2 = transform.structured.fuse_into_containing_op %p into %nf : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      }
      transform.sequence %ff : !transform.any_op failures(suppress) {
      ^bb3(%x: !transform.any_op):
        %p = transform.get_producer_of_operand %x[0] : (!transform.any_op) -> !transform.any_op
        transform.match.operation_name %p ["linalg.transpose"] : !transform.any_op
        %f2, %nf2 = transform.structured.fuse_into_containing_op %p into %nf : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      }
    }
    transform.yield
  }
  transform.named_sequence @tile_and_fuse_rank3(%c: !transform.any_op {transform.consumed}, %m: !transform.any_op {transform.consumed}) {
    %t, %forall = transform.structured.tile_using_forall %c tile_sizes [1, 32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %f, %nf = transform.structured.fuse_into_containing_op %m into %forall : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.foreach %f : !transform.any_op {
    ^bb2(%ff: !transform.any_op):
      transform.sequence %ff : !transform.any_op failures(suppress) {
      ^bb3(%x: !transform.any_op):
        %p = transform.get_producer_of_operand %x[2] : (!transform.any_op) -> !transform.any_op
        transform.match.operation_name %p ["linalg.fill"] : !transform.any_op
        %f2, %nf2 = transform.structured.fuse_into_containing_op %p into %nf : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      }
      transform.sequence %ff : !transform.any_op failures(suppress) {
      ^bb3(%x: !transform.any_op):
        %p = transform.get_producer_of_operand %x[0] : (!transform.any_op) -> !transform.any_op
        transform.match.operation_name %p ["linalg.transpose"] : !transform.any_op
        %f2, %nf2 = transform.structured.fuse_into_containing_op %p into %nf : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      }
    }
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    transform.foreach_match in %root
        @match_input0_rank2 -> @tile_and_fuse_rank2, @match_input1_rank2 -> @tile_and_fuse_rank2,
        @match_input2_rank2 -> @tile_and_fuse_rank2, @match_input3_rank2 -> @tile_and_fuse_rank2,
        @match_input0_rank3 -> @tile_and_fuse_rank3, @match_input1_rank3 -> @tile_and_fuse_rank3,
        @match_input2_rank3 -> @tile_and_fuse_rank3, @match_input3_rank3 -> @tile_and_fuse_rank3
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
