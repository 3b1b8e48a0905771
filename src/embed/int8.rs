//! Products at int8: the precision the model runs at, and the graph rewrite that gives it.
//!
//! The export's weights are int8 with a scale per column, cast back to f32 before each product
//! (`MatMul(x, Mul(Cast(q), s))`). At [`Precision::Int8`] each such product but the feed-forward
//! layers' narrowing ones ([`RECIPE`]) becomes ONNX Runtime's `DynamicQuantizeMatMul(x, q, s)`:
//! the input is quantised to uint8 as it comes (a scale and zero point per run of the model, which
//! holds one text) and multiplied by the int8 weights in integers, with the
//! kernels ONNX Runtime picks for the CPU when it starts (VNNI's where it has them). On x86 without
//! VNNI the uint8 × int8 products go through 16-bit sums that can saturate, so there the model runs
//! at f32 unless told otherwise ([`Precision::for_this_machine`]). What decided int8 is retrieval,
//! not how closely the vectors agree: docs/figures.md ("Indexing and embedding").

use std::fmt;

use prost::Message;

use super::graph::{Graph, GraphError, Model, Tensor};
use super::weights::{f32_values, rounded_weights};

/// The precision of the model's matrix products.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// f32 weights (the export's int8 ones replaced by the originals they were rounded from) and
    /// f32 products.
    F32,
    /// The export's int8 weights, inputs quantised to uint8 as they come, integer products.
    Int8,
}

impl Precision {
    /// [`Precision::Int8`] where the CPU multiplies int8 exactly and fast (x86 with VNNI, or not
    /// x86), else [`Precision::F32`].
    pub fn for_this_machine() -> Precision {
        if exact_int8_products() {
            Precision::Int8
        } else {
            Precision::F32
        }
    }
}

/// `f32` or `int8`: as `LECTERN_EMBEDDER=minilm-…` and the model's identity name it.
impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Precision::F32 => "f32",
            Precision::Int8 => "int8",
        })
    }
}

#[cfg(target_arch = "x86_64")]
fn exact_int8_products() -> bool {
    std::arch::is_x86_feature_detected!("avx512vnni") || std::arch::is_x86_feature_detected!("avxvnni")
}

#[cfg(not(target_arch = "x86_64"))]
fn exact_int8_products() -> bool {
    true
}

/// How the int8 model differs from products all at int8, part of its identity: the products
/// that bring the feed-forward layers' expansion (1,536 wide) back to the model's width (384)
/// stay at f32, and each text runs alone (`minilm.rs`). The first's input comes out of a GELU,
/// whose few large values leave one uint8 scale too coarse for the rest; a batch's scale is its
/// companions' and its padding's too. Measured on realqa's text against f32 (docs/figures.md,
/// "Indexing and embedding"): the vectors' mean cosine 0.9938 with every product at int8, 0.9973
/// with those at f32, 0.9975 (lowest 0.991, from 0.981) one text a run.
pub(super) const RECIPE: &str = "products narrowing the feed-forward layers at f32; one text a run";

/// The operator domain of ONNX Runtime's own operators.
const MICROSOFT: &str = "com.microsoft";

/// `OperatorSetIdProto`.
#[derive(Clone, PartialEq, Message)]
struct OperatorSet {
    #[prost(string, tag = "1")]
    domain: String,
    #[prost(int64, tag = "2")]
    version: i64,
}

/// Turns the products of `model` by int8 weights into `DynamicQuantizeMatMul` on those weights,
/// but for those whose input is wider than their output ([`RECIPE`]). Returns how many were
/// turned.
pub(super) fn quantize_products(model: &mut Model) -> Result<usize, GraphError> {
    let Some(graph) = model.graph.as_mut() else {
        return Ok(0);
    };
    let turned = quantize_graph(graph)?;
    let imported = model
        .opset_import
        .iter()
        .filter_map(|bytes| OperatorSet::decode(bytes.as_slice()).ok())
        .any(|set| set.domain == MICROSOFT);
    if turned > 0 && !imported {
        let set = OperatorSet {
            domain: MICROSOFT.into(),
            version: 1,
        };
        model.opset_import.push(set.encode_to_vec());
    }
    Ok(turned)
}

fn quantize_graph(graph: &mut Graph) -> Result<usize, GraphError> {
    let initializers = graph.initializer_positions()?;
    let mut dropped = std::collections::HashSet::new();
    let mut turned = 0;
    for weight in rounded_weights(graph, &initializers) {
        let values = Tensor::decode(graph.initializer[initializers[&weight.values]].as_slice())?;
        if let [inputs, outputs] = values.dims[..] {
            if inputs > outputs {
                continue;
            }
        }
        let product = graph
            .node
            .iter()
            .position(|n| n.op_type == "MatMul" && n.domain.is_empty() && n.input.get(1) == Some(&weight.name))
            .ok_or_else(|| GraphError::Malformed {
                weight: weight.values.clone(),
                reason: "no product reads it".into(),
            })?;
        let at = initializers[&weight.scales];
        let mut scales = Tensor::decode(graph.initializer[at].as_slice())?;
        // One scale per column, as a vector: DynamicQuantizeMatMul's per-column form.
        let columns = f32_values(&weight.scales, &scales)?.len();
        scales.dims = vec![columns as i64];
        graph.initializer[at] = scales.encode_to_vec();
        let node = &mut graph.node[product];
        node.op_type = "DynamicQuantizeMatMul".into();
        node.domain = MICROSOFT.into();
        node.input = vec![node.input[0].clone(), weight.values.clone(), weight.scales.clone()];
        dropped.extend(weight.nodes);
        turned += 1;
    }
    graph.remove_nodes(&dropped);
    Ok(turned)
}

#[cfg(test)]
mod tests {
    use super::super::graph::tests::{f32_bytes, node, tensor};
    use super::*;

    #[test]
    fn a_product_by_an_int8_weight_multiplies_in_integers() {
        let mut model = Model {
            graph: Some(Graph {
                node: vec![
                    node("Cast", &["w_q"], "w_f"),
                    node("Mul", &["w_f", "w_scale"], "w"),
                    node("MatMul", &["x", "w"], "y"),
                    node("MatMul", &["y", "v"], "z"),
                    node("Cast", &["n_q"], "n_f"),
                    node("Mul", &["n_f", "n_scale"], "n"),
                    node("MatMul", &["z", "n"], "out"),
                ],
                initializer: vec![
                    tensor("w_q", &[2, 3], 3, vec![10, 20, 30, 40, 50, 127]),
                    tensor("w_scale", &[1, 3], 1, f32_bytes(&[0.1, 0.01, 0.001])),
                    tensor("n_q", &[3, 2], 3, vec![10, 20, 30, 40, 50, 127]),
                    tensor("n_scale", &[1, 2], 1, f32_bytes(&[0.1, 0.01])),
                ],
                ..Graph::default()
            }),
            ..Model::default()
        };
        assert_eq!(quantize_products(&mut model).unwrap(), 1);
        let graph = model.graph.as_ref().unwrap();
        let ops: Vec<(&str, &str)> = graph
            .node
            .iter()
            .map(|n| (n.op_type.as_str(), n.domain.as_str()))
            .collect();
        assert_eq!(
            ops,
            [
                ("DynamicQuantizeMatMul", MICROSOFT),
                ("MatMul", ""),
                ("Cast", ""),
                ("Mul", ""),
                ("MatMul", "")
            ],
            "a product by a value that is not a weight stays, and so does one narrowing 3 to 2"
        );
        assert_eq!(graph.node[0].input, ["x", "w_q", "w_scale"]);
        assert_eq!(graph.node[0].output, ["y"]);
        let scales = Tensor::decode(graph.initializer[1].as_slice()).unwrap();
        assert_eq!(scales.dims, [3]);
        let sets: Vec<OperatorSet> = model
            .opset_import
            .iter()
            .map(|b| OperatorSet::decode(b.as_slice()).unwrap())
            .collect();
        assert_eq!(sets.iter().filter(|s| s.domain == MICROSOFT).count(), 1);
        assert_eq!(quantize_products(&mut model).unwrap(), 0, "nothing is left to turn");
        assert_eq!(model.opset_import.len(), 1);
    }
}
