// DLRM (deep learning recommendation model) training steps: embedding tables model-parallel,
// the bottom and top MLPs data-parallel (FACTS §4).
//
// Terms: N ranks, B global batch, n = B / N samples per rank, T tables of dimension D, table j
// on rank j mod N (so rank r holds T_r = ⌈(T − r) / N⌉ tables, T_max = ⌈T / N⌉), P lookups per
// sample per table (pooling factor), e the element bytes of `dtype`, F = T + 1 interaction
// features, top-MLP input D + F·(F − 1) / 2 (dot interaction without self pairs; MLPerf:
// 128 + 351 = 479).
//
// Per rank and iteration, in program order (each compute node depends on the compute node before
// it, so the compute stream follows this order):
//   fwd.embedding        elementwise  lookups for all B samples in the rank's tables: B·T_r·P·D
//                        FLOPs (sum pooling), B·T_r·(P + 1)·D·e bytes (rows read, pooled written);
//                        absent when T_r = 0
//   fwd.alltoall         all-to-all of the pooled embeddings, B·T_max·D·e bytes per rank (nccl-
//                        tests send buffer: n·T_max·D·e for each member; with T mod N ≠ 0 every
//                        rank's part is padded to the largest shard); after fwd.embedding
//   fwd.bottom_mlp.i     gemm  2·n·in·out FLOPs, (in·out + n·in + n·out)·e bytes; runs while the
//                        all-to-all is in flight
//   fwd.interaction      gemm  2·n·F²·D FLOPs (Z = X·Xᵀ per sample), n·(F·D + F² + top_in)·e bytes;
//                        after the last bottom layer and the all-to-all
//   fwd.top_mlp.i        gemm  as the bottom MLP
//   bwd.top_mlp.i        gemm  in reverse order, 4·n·in·out FLOPs (twice the forward), same bytes
//   bwd.interaction      gemm  4·n·F²·D FLOPs
//   bwd.alltoall         all-to-all of the embedding gradients, same size as fwd.alltoall; after
//                        bwd.interaction
//   bwd.bottom_mlp.i     gemm  in reverse order; overlaps bwd.alltoall
//   dp.allreduce_grads   all-reduce of the bottom + top MLP parameters (weights and biases) in
//                        grad_dtype, after the last bottom-MLP backward
//   bwd.embedding        elementwise  sparse update of the looked-up rows: B·T_r·P·D FLOPs,
//                        2·B·T_r·P·D·e bytes; after bwd.alltoall; absent when T_r = 0
//   optimizer.step       elementwise  SGD on the MLP parameters: weight and gradient read, weight
//                        written, 3 · parameters · element_bytes(grad_dtype) bytes; after the
//                        all-reduce
// The next iteration starts after the optimizer and the embedding update. With N = 1 there are no
// collectives.
//
// Communicators: "embedding" (kind kOther) for the all-to-alls and "dp" (kind kData) for the
// all-reduce, both over every rank. Streams (RuntimeOptions::comm_streams at least
// kCommStreams, training_step.h): all-to-alls on Streams::kTensor (the model-parallel exchange,
// as the transformer's EP all-to-alls), the all-reduce on Streams::kData.
//
// Compute nodes carry flops and bytes, not durations: run compute::assign_durations before
// simulating.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/workload/workload.h"

namespace loom::workload::synthesis {

struct DlrmConfig {
  std::string name;
  std::uint64_t dense_features = 0;          // bottom-MLP input width
  std::vector<std::uint64_t> bottom_mlp;     // output width of each bottom layer; last == embedding_dim
  std::vector<std::uint64_t> top_mlp;        // output width of each top layer
  std::uint32_t tables = 0;                  // T, embedding tables (one sparse feature each)
  std::uint64_t embedding_dim = 0;           // D
  std::uint32_t pooling = 1;                 // P, lookups per sample per table (1: one-hot)

  std::uint64_t interaction_features() const { return std::uint64_t{tables} + 1; }
  std::uint64_t top_input() const;           // D + F·(F − 1) / 2
  // Weights and biases of both MLPs: Σ (in·out + out).
  std::uint64_t mlp_parameters() const;
};

// MLPerf DLRM (Criteo 1TB): 13 dense features, bottom 512-256-128, top 1024-1024-512-256-1,
// 26 tables of D = 128, one-hot lookups.
DlrmConfig mlperf_dlrm();

struct DlrmPlan {
  std::uint32_t ranks = 1;                   // N, each holds tables and a data-parallel MLP replica
  std::uint32_t global_batch = 2048;         // B samples per iteration (MLPerf: 2048); multiple of N
  DataType dtype = DataType::kFp32;          // activations, embeddings and the all-to-alls
  DataType grad_dtype = DataType::kFp32;     // the dense gradient all-reduce
  std::uint32_t iterations = 1;
};

// UserError naming the parameter: zero sizes or widths, an empty MLP, a bottom MLP whose last
// width is not embedding_dim, global_batch not a multiple of ranks, an unset dtype.
void validate(const DlrmConfig& model, const DlrmPlan& plan);

// Validates and builds. O(ranks · iterations · layers).
Workload synthesize_dlrm(const DlrmConfig& model, const DlrmPlan& plan);

}  // namespace loom::workload::synthesis
