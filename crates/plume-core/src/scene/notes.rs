//! What is worth telling a user once about a valid scene: meshes that are not closed or that
//! the grid hardly resolves, and a step that costs far more than the default scene's.

use super::Scene;
use crate::sim::{body, cost};

impl Scene {
    /// Things worth telling the user once about a valid scene: meshes that are not closed or
    /// that the grid hardly resolves, and a step far dearer than the default scene's.
    pub fn notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        let items = self
            .obstacles
            .iter()
            .map(|o| ("obstacle", o.body()))
            .chain(self.emitters.iter().map(|e| ("emitter", e.body())));
        let mut counts = std::collections::HashMap::new();
        let grid = self.grid_placement();
        for (what, b) in items {
            let i = counts.entry(what).or_insert(0usize);
            if let Ok(body::Body {
                form: body::Form::Mesh { mesh, open: true },
                ..
            }) = &b
            {
                out.push(format!(
                    "{what}[{i}]: the mesh is not closed ({} edges are not shared by two \
                     triangles); it is voxelised by votes of rays along x, y and z (a ray \
                     through a hole abstains), and where no inside is found next to its \
                     surface, the cells the surface passes through are solid",
                    mesh.open_edges
                ));
            }
            if let Some(n) = b
                .as_ref()
                .ok()
                .and_then(|b| b.voxel_note(&grid, what == "obstacle"))
            {
                out.push(format!("{what}[{i}]: {n}"));
            }
            *i += 1;
        }
        out.extend(self.cost_note());
        out
    }

    /// Where the scene's settings make a step cost more than [`cost::NOTE_ABOVE`] default
    /// scene steps at its grid (an estimate: [`cost::estimate`]), what it costs and the
    /// setting that costs most.
    pub fn cost_note(&self) -> Option<String> {
        let fastest = self
            .emitters
            .iter()
            .filter_map(|e| e.velocity)
            .flatten()
            .fold(0.0f32, |m, v| m.max(v.abs()));
        let fire = self.emitters.iter().any(|e| e.burns());
        let e = cost::estimate(&self.fluid, &self.grid_placement(), fastest, fire);
        (e.times_default > cost::NOTE_ABOVE).then(|| {
            format!(
                "a step of this scene costs about {:.0} times the default scene's on its grid \
                 (estimated), most from {}; steps are held to {} times (solves stop short where \
                 they would cost more)",
                e.times_default,
                e.costliest,
                cost::BUDGET
            )
        })
    }
}
