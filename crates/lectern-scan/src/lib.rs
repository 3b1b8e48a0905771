//! Exhaustive similarity scan over int8-quantised vector blocks.
//!
//! Lectern keeps one index per document, so a question over a folder scans many small blocks of
//! vectors. Holding them as `f32` would cost 1.5 KB per 384-d chunk (460 MB for 300,000 chunks);
//! this crate holds them as one `i8` code per dimension plus one `f32` scale per row (4x smaller),
//! scans them with a SIMD integer dot product, and leaves exact `f32` rescoring of the few best
//! candidates to the caller ([`dot_f32`]).
//!
//! It is a crate of its own so that it is compiled with optimisations in every profile: the scan
//! is the inner loop of every query.

mod cluster;
mod dot;
mod quantize;
mod topk;

pub use cluster::{centroids, nearest_groups};
pub use dot::{dot_f32, dot_i8};
pub use quantize::{QuantizedBlock, QuantizedQuery};
pub use topk::{Candidate, TopK};
