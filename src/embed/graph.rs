//! The model's ONNX graph, rewritten before ONNX Runtime loads it:
//!
//! - PyTorch exports attention with its softmax wrapped in `Where(IsNaN(p), 0, p)`, for rows whose
//!   every key is masked; a text always has its own tokens to attend to, so no row is, and the two
//!   nodes only cost time (a seventh of it, measured). They are removed.
//! - At int8, the products by the export's int8 weights multiply in integers (`int8.rs`); at f32,
//!   those weights are replaced by the f32 ones they were rounded from (`weights.rs`).
//!
//! Nothing else changes: every field the rewrites do not read is carried through as the bytes it
//! was read from.

use std::collections::{HashMap, HashSet};

use prost::Message;
use thiserror::Error;

use super::int8::{self, Precision};
use super::weights;

/// Why the model's files could not be made into the graph that runs.
#[derive(Debug, Error)]
pub enum GraphError {
    #[error("model.onnx is not an ONNX model: {0}")]
    NotOnnx(#[from] prost::DecodeError),
    #[error("model.safetensors is not a safetensors file: {0}")]
    NotSafetensors(String),
    #[error(
        "model.safetensors holds no weight that {weight} of model.onnx was rounded from: the two files are not of the same model"
    )]
    NoOriginal { weight: String },
    #[error("model.onnx holds a weight, {weight}, that is not what its use says ({reason})")]
    Malformed { weight: String, reason: String },
}

/// The graph that runs: `exported` (an ONNX file's bytes) without the masked-softmax guards, its
/// products at `precision`: by its int8 weights in integers, or by their f32 originals from
/// `originals` (a safetensors file's bytes).
pub fn prepare(exported: &[u8], originals: &[u8], precision: Precision) -> Result<Vec<u8>, GraphError> {
    let mut model = Model::decode(exported)?;
    if let Some(graph) = model.graph.as_mut() {
        remove_softmax_guards(graph);
    }
    if precision == Precision::Int8 {
        int8::quantize_products(&mut model)?;
    }
    // The products left by int8 weights, all of them at f32.
    if let Some(graph) = model.graph.as_mut() {
        weights::restore_originals(graph, originals)?;
    }
    Ok(model.encode_to_vec())
}

/// `ModelProto` of onnx.proto: the graph decoded, every other field kept as it was.
#[derive(Clone, PartialEq, Message)]
pub(super) struct Model {
    #[prost(int64, tag = "1")]
    pub(super) ir_version: i64,
    #[prost(string, tag = "2")]
    pub(super) producer_name: String,
    #[prost(string, tag = "3")]
    pub(super) producer_version: String,
    #[prost(string, tag = "4")]
    pub(super) domain: String,
    #[prost(int64, tag = "5")]
    pub(super) model_version: i64,
    #[prost(string, tag = "6")]
    pub(super) doc_string: String,
    #[prost(message, optional, tag = "7")]
    pub(super) graph: Option<Graph>,
    #[prost(bytes = "vec", repeated, tag = "8")]
    pub(super) opset_import: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "14")]
    pub(super) metadata_props: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "20")]
    pub(super) training_info: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "25")]
    pub(super) functions: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "26")]
    pub(super) configuration: Vec<Vec<u8>>,
}

/// `GraphProto`: the nodes decoded, the rest kept as bytes.
#[derive(Clone, PartialEq, Message)]
pub(super) struct Graph {
    #[prost(message, repeated, tag = "1")]
    pub(super) node: Vec<Node>,
    #[prost(string, tag = "2")]
    pub(super) name: String,
    /// `TensorProto`s, decoded where a rewrite reads them ([`Tensor`]).
    #[prost(bytes = "vec", repeated, tag = "5")]
    pub(super) initializer: Vec<Vec<u8>>,
    #[prost(string, tag = "10")]
    pub(super) doc_string: String,
    #[prost(bytes = "vec", repeated, tag = "11")]
    pub(super) input: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "12")]
    pub(super) output: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "13")]
    pub(super) value_info: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "14")]
    pub(super) quantization_annotation: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "15")]
    pub(super) sparse_initializer: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "16")]
    pub(super) metadata_props: Vec<Vec<u8>>,
}

/// `NodeProto`: inputs, outputs and operator decoded, attributes kept as bytes.
#[derive(Clone, PartialEq, Message)]
pub(super) struct Node {
    #[prost(string, repeated, tag = "1")]
    pub(super) input: Vec<String>,
    #[prost(string, repeated, tag = "2")]
    pub(super) output: Vec<String>,
    #[prost(string, tag = "3")]
    pub(super) name: String,
    #[prost(string, tag = "4")]
    pub(super) op_type: String,
    #[prost(bytes = "vec", repeated, tag = "5")]
    pub(super) attribute: Vec<Vec<u8>>,
    #[prost(string, tag = "6")]
    pub(super) doc_string: String,
    #[prost(string, tag = "7")]
    pub(super) domain: String,
    #[prost(string, tag = "8")]
    pub(super) overload: String,
    #[prost(bytes = "vec", repeated, tag = "9")]
    pub(super) metadata_props: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "10")]
    pub(super) device_configurations: Vec<Vec<u8>>,
}

/// `TensorProto`: what the weight rewrite reads and writes of an initializer.
#[derive(Clone, PartialEq, Message)]
pub(super) struct Tensor {
    #[prost(int64, repeated, tag = "1")]
    pub(super) dims: Vec<i64>,
    #[prost(int32, tag = "2")]
    pub(super) data_type: i32,
    #[prost(float, repeated, tag = "4")]
    pub(super) float_data: Vec<f32>,
    #[prost(int32, repeated, tag = "5")]
    pub(super) int32_data: Vec<i32>,
    #[prost(string, tag = "8")]
    pub(super) name: String,
    #[prost(bytes = "vec", tag = "9")]
    pub(super) raw_data: Vec<u8>,
    /// 1 when the data is in another file, which a weight read here never is.
    #[prost(int32, tag = "14")]
    pub(super) data_location: i32,
}

/// A `TensorProto` read for its name only, its data skipped.
#[derive(Clone, PartialEq, Message)]
pub(super) struct TensorName {
    #[prost(string, tag = "8")]
    pub(super) name: String,
}

/// `ValueInfoProto`, for its name only.
#[derive(Clone, PartialEq, Message)]
struct ValueInfo {
    #[prost(string, tag = "1")]
    name: String,
}

impl Graph {
    /// The position of the node that writes each value.
    pub(super) fn producers(&self) -> HashMap<&str, usize> {
        self.node
            .iter()
            .enumerate()
            .flat_map(|(i, n)| n.output.iter().map(move |o| (o.as_str(), i)))
            .collect()
    }

    /// How many times nodes read each value.
    pub(super) fn readers(&self) -> HashMap<&str, usize> {
        let mut uses: HashMap<&str, usize> = HashMap::new();
        for name in self.node.iter().flat_map(|n| &n.input) {
            *uses.entry(name.as_str()).or_default() += 1;
        }
        uses
    }

    /// The position of each initializer, by name.
    pub(super) fn initializer_positions(&self) -> Result<HashMap<String, usize>, prost::DecodeError> {
        self.initializer
            .iter()
            .enumerate()
            .map(|(i, bytes)| Ok((TensorName::decode(bytes.as_slice())?.name, i)))
            .collect()
    }

    /// Removes the initializers at `positions`.
    pub(super) fn remove_initializers(&mut self, positions: &HashSet<usize>) {
        let mut index = 0;
        self.initializer.retain(|_| {
            index += 1;
            !positions.contains(&(index - 1))
        });
    }

    /// Removes the nodes at `positions`.
    pub(super) fn remove_nodes(&mut self, positions: &HashSet<usize>) {
        let mut index = 0;
        self.node.retain(|_| {
            index += 1;
            !positions.contains(&(index - 1))
        });
    }
}

/// Removes the masked-softmax guards of `graph`.
fn remove_softmax_guards(graph: &mut Graph) {
    let producer = graph.producers();
    let uses = graph.readers();
    let graph_outputs: HashSet<String> = graph
        .output
        .iter()
        .filter_map(|o| ValueInfo::decode(o.as_slice()).ok())
        .map(|v| v.name)
        .collect();
    // Where(IsNaN(p), c, p): its users read p instead.
    let mut replaced: HashMap<String, String> = HashMap::new();
    let mut dropped: HashSet<usize> = HashSet::new();
    for (i, node) in graph.node.iter().enumerate() {
        let [condition, _, kept] = node.input.as_slice() else {
            continue;
        };
        let Some(&guard) = producer.get(condition.as_str()) else {
            continue;
        };
        let is_nan = &graph.node[guard];
        if node.op_type == "Where"
            && node.domain.is_empty()
            && is_nan.op_type == "IsNaN"
            && is_nan.domain.is_empty()
            && is_nan.input.first() == Some(kept)
            && uses.get(condition.as_str()) == Some(&1)
            && node.output.len() == 1
            && !graph_outputs.contains(&node.output[0])
        {
            replaced.insert(node.output[0].clone(), kept.clone());
            dropped.extend([i, guard]);
        }
    }
    if dropped.is_empty() {
        return;
    }
    graph.remove_nodes(&dropped);
    for input in graph.node.iter_mut().flat_map(|n| n.input.iter_mut()) {
        if let Some(kept) = replaced.get(input) {
            *input = kept.clone();
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// An initializer's bytes: a tensor named `name` of `dims` and `data_type` holding `raw_data`.
    pub(in crate::embed) fn tensor(name: &str, dims: &[i64], data_type: i32, raw_data: Vec<u8>) -> Vec<u8> {
        Tensor {
            dims: dims.to_vec(),
            data_type,
            name: name.into(),
            raw_data,
            ..Tensor::default()
        }
        .encode_to_vec()
    }

    /// `values` as little-endian bytes.
    pub(in crate::embed) fn f32_bytes(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// A node of operator `op` reading `input` and writing `output`.
    pub(in crate::embed) fn node(op: &str, input: &[&str], output: &str) -> Node {
        Node {
            op_type: op.into(),
            input: input.iter().map(|s| s.to_string()).collect(),
            output: vec![output.into()],
            ..Node::default()
        }
    }

    fn without_softmax_guards(model: &[u8]) -> Vec<u8> {
        let mut decoded = Model::decode(model).unwrap();
        remove_softmax_guards(decoded.graph.as_mut().unwrap());
        decoded.encode_to_vec()
    }

    fn model(nodes: Vec<Node>) -> Vec<u8> {
        Model {
            ir_version: 8,
            opset_import: vec![b"\x10\x11".to_vec()],
            graph: Some(Graph {
                node: nodes,
                initializer: vec![b"opaque tensor".to_vec()],
                output: vec![b"\x0a\x03out".to_vec()],
                ..Graph::default()
            }),
            ..Model::default()
        }
        .encode_to_vec()
    }

    #[test]
    fn the_guard_goes_and_its_users_read_the_softmax() {
        let before = model(vec![
            node("Softmax", &["scores"], "p"),
            node("IsNaN", &["p"], "nan"),
            node("Where", &["nan", "zero", "p"], "guarded"),
            node("MatMul", &["guarded", "v"], "out"),
        ]);
        let after = Model::decode(without_softmax_guards(&before).as_slice()).unwrap();
        let graph = after.graph.unwrap();
        let ops: Vec<&str> = graph.node.iter().map(|n| n.op_type.as_str()).collect();
        assert_eq!(ops, ["Softmax", "MatMul"]);
        assert_eq!(graph.node[1].input, ["p", "v"]);
        assert_eq!(
            graph.initializer,
            [b"opaque tensor".to_vec()],
            "what is not read is kept"
        );
        assert_eq!(after.opset_import, [b"\x10\x11".to_vec()]);
    }

    #[test]
    fn a_guard_read_elsewhere_or_of_another_value_stays() {
        let other_value = model(vec![
            node("IsNaN", &["q"], "nan"),
            node("Where", &["nan", "zero", "p"], "guarded"),
        ]);
        assert_eq!(without_softmax_guards(&other_value), other_value);
        let read_twice = model(vec![
            node("IsNaN", &["p"], "nan"),
            node("Where", &["nan", "zero", "p"], "guarded"),
            node("Not", &["nan"], "seen"),
        ]);
        assert_eq!(without_softmax_guards(&read_twice), read_twice);
        let an_output = model(vec![
            node("IsNaN", &["p"], "nan"),
            node("Where", &["nan", "zero", "p"], "out"),
        ]);
        assert_eq!(without_softmax_guards(&an_output), an_output);
    }
}
