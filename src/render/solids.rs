//! Obstacles as triangles: spheres, boxes and meshes drawn with depth into a hit buffer (per
//! pixel: the surface normal facing the eye and the distance from the eye), which the volume
//! pass reads to stop its rays and shade the solid behind the smoke, and the streamline pass
//! to hide lines behind solids. Each obstacle stands where its key frames put it at the time
//! of the last frame uploaded.

use super::RenderError;
use crate::camera::OrbitCamera;
use crate::sim::body::{Body, Form};
use crate::sim::Obstacle;
use glium::backend::Facade;
use glium::framebuffer::{DepthRenderBuffer, SimpleFrameBuffer};
use glium::index::{NoIndices, PrimitiveType};
use glium::texture::{DepthFormat, MipmapsOption, Texture2d, UncompressedFloatFormat};
use glium::uniforms::{MagnifySamplerFilter, MinifySamplerFilter, Sampler};
use glium::{implement_vertex, uniform, DrawParameters, Program, Rect, Surface, VertexBuffer};
use std::cell::RefCell;

const SOLID_VERT: &str = include_str!("../../shaders/solid.vert");
const SOLID_FRAG: &str = include_str!("../../shaders/solid.frag");

/// The distance a hit buffer holds where no solid is seen.
pub const NO_HIT: f32 = 1e30;

/// A vertex of an obstacle in its own coordinates.
#[derive(Copy, Clone, Debug)]
pub struct SolidVertex {
    /// Position.
    pub position: [f32; 3],
    /// Normal.
    pub normal: [f32; 3],
}
implement_vertex!(SolidVertex, position, normal);

/// The triangles of a body in its own coordinates (spheres smooth, boxes and meshes flat).
pub fn triangles(body: &Body) -> Vec<SolidVertex> {
    let mut out = Vec::new();
    let mut flat = |a: [f32; 3], b: [f32; 3], c: [f32; 3]| {
        let u = [0, 1, 2].map(|i| b[i] - a[i]);
        let v = [0, 1, 2].map(|i| c[i] - a[i]);
        let n = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        for position in [a, b, c] {
            out.push(SolidVertex {
                position,
                normal: n,
            });
        }
    };
    match &body.form {
        Form::Sphere(r) => {
            let (slices, stacks) = (48, 24);
            let at = |i: usize, j: usize| {
                let th = std::f32::consts::PI * j as f32 / stacks as f32;
                let ph = std::f32::consts::TAU * i as f32 / slices as f32;
                [th.sin() * ph.cos(), th.cos(), th.sin() * ph.sin()]
            };
            let mut v = Vec::new();
            for j in 0..stacks {
                for i in 0..slices {
                    let q = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)];
                    for k in [0, 1, 2, 0, 2, 3] {
                        v.push(SolidVertex {
                            position: q[k].map(|x| x * r),
                            normal: q[k],
                        });
                    }
                }
            }
            return v;
        }
        Form::Box(h) => {
            let c = |i: usize| [0, 1, 2].map(|a| if i >> a & 1 == 0 { -h[a] } else { h[a] });
            for q in [
                [0, 4, 6, 2],
                [1, 3, 7, 5],
                [0, 1, 5, 4],
                [2, 6, 7, 3],
                [0, 2, 3, 1],
                [4, 5, 7, 6],
            ] {
                flat(c(q[0]), c(q[1]), c(q[2]));
                flat(c(q[0]), c(q[2]), c(q[3]));
            }
        }
        Form::Mesh { mesh, .. } => {
            for t in &mesh.triangles {
                let p = t.map(|i| mesh.vertices[i as usize]);
                flat(p[0], p[1], p[2]);
            }
        }
    }
    out
}

/// A hit buffer, its depth buffer and their size.
type HitBuffer = (Texture2d, DepthRenderBuffer, (u32, u32));

/// The obstacles' triangles on the GPU and the hit buffer they are drawn into.
pub struct SolidPass {
    program: Program,
    shapes: Vec<(VertexBuffer<SolidVertex>, Body)>,
    /// Hit buffers and their depth buffers, one per viewport size in use (the 3D view may
    /// draw the volume at a reduced scale and the streamlines at full size): at most two.
    targets: RefCell<Vec<HitBuffer>>,
    /// A 1×1 hit buffer that sees nothing (bound when there are no obstacles).
    none: Texture2d,
    /// Simulated time the obstacles are placed at.
    pub time: f64,
}

impl SolidPass {
    /// Compiles the program; no obstacles yet.
    pub fn new(facade: &impl Facade) -> Result<Self, RenderError> {
        let none = Texture2d::with_format(
            facade,
            vec![vec![(0.0f32, 1.0f32, 0.0f32, NO_HIT)]],
            UncompressedFloatFormat::F32F32F32F32,
            MipmapsOption::NoMipmap,
        )
        .map_err(|e| RenderError::resource("empty hit buffer", e))?;
        Ok(Self {
            program: super::program(facade, "solids", SOLID_VERT, SOLID_FRAG)?,
            shapes: Vec::new(),
            targets: RefCell::new(Vec::new()),
            none,
            time: 0.0,
        })
    }

    /// Replaces the obstacles (meshes are read, once per file).
    pub fn set_obstacles(
        &mut self,
        facade: &impl Facade,
        obstacles: &[Obstacle],
    ) -> Result<(), RenderError> {
        let n = super::MAX_OBSTACLES;
        if obstacles.len() > n {
            return Err(RenderError::InvalidSetting(format!(
                "{} obstacles; at most {n} can be drawn",
                obstacles.len()
            )));
        }
        let mut shapes = Vec::with_capacity(obstacles.len());
        for (i, o) in obstacles.iter().enumerate() {
            let body = o
                .body()
                .map_err(|e| RenderError::InvalidSetting(format!("obstacle[{i}]: {e}")))?;
            let vb = VertexBuffer::new(facade, &triangles(&body))
                .map_err(|e| RenderError::resource("obstacle triangles", e))?;
            shapes.push((vb, body));
        }
        self.shapes = shapes;
        Ok(())
    }

    /// Whether there is anything to draw.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// Draws the obstacles as `camera` sees them in a `viewport`-sized hit buffer and calls
    /// `f` with it (a 1×1 buffer that sees nothing when there are no obstacles).
    pub fn with_hits<R>(
        &self,
        facade: &impl Facade,
        viewport: Rect,
        camera: &OrbitCamera,
        f: impl FnOnce(Sampler<'_, Texture2d>) -> Result<R, RenderError>,
    ) -> Result<R, RenderError> {
        // Read with texelFetch: one texel a pixel, never filtered.
        let nearest = |t| {
            Sampler::new(t)
                .magnify_filter(MagnifySamplerFilter::Nearest)
                .minify_filter(MinifySamplerFilter::Nearest)
        };
        if self.shapes.is_empty() {
            return f(nearest(&self.none));
        }
        let size = (viewport.width.max(1), viewport.height.max(1));
        let mut targets = self.targets.borrow_mut();
        let at = match targets.iter().position(|t| t.2 == size) {
            Some(i) => i,
            None => {
                let tex = Texture2d::empty_with_format(
                    facade,
                    UncompressedFloatFormat::F32F32F32F32,
                    MipmapsOption::NoMipmap,
                    size.0,
                    size.1,
                )
                .map_err(|e| RenderError::resource("hit buffer", e))?;
                let depth = DepthRenderBuffer::new(facade, DepthFormat::I24, size.0, size.1)
                    .map_err(|e| RenderError::resource("hit buffer depth", e))?;
                if targets.len() >= 2 {
                    targets.remove(0);
                }
                targets.push((tex, depth, size));
                targets.len() - 1
            }
        };
        let (tex, depth, _) = &targets[at];
        let mut fb = SimpleFrameBuffer::with_depth_buffer(facade, tex, depth)
            .map_err(|e| RenderError::resource("hit framebuffer", e))?;
        fb.clear_color_and_depth((0.0, 1.0, 0.0, NO_HIT), 1.0);
        let vp: [[f32; 4]; 4] = camera.view_projection(size.0 as f32 / size.1 as f32).into();
        let eye = camera.eye();
        let params = DrawParameters {
            depth: glium::Depth {
                test: glium::DepthTest::IfLess,
                write: true,
                ..Default::default()
            },
            viewport: Some(Rect {
                left: 0,
                bottom: 0,
                width: size.0,
                height: size.1,
            }),
            ..Default::default()
        };
        for (vb, body) in &self.shapes {
            let a = body.pose_at(self.time).affine();
            let m = a.m;
            let normal = m.try_inverse().unwrap_or(m).transpose();
            let model = [
                [m[(0, 0)] as f32, m[(1, 0)] as f32, m[(2, 0)] as f32, 0.0],
                [m[(0, 1)] as f32, m[(1, 1)] as f32, m[(2, 1)] as f32, 0.0],
                [m[(0, 2)] as f32, m[(1, 2)] as f32, m[(2, 2)] as f32, 0.0],
                [a.t.x as f32, a.t.y as f32, a.t.z as f32, 1.0],
            ];
            let nm = [0, 1, 2].map(|c| [0, 1, 2].map(|r| normal[(r, c)] as f32));
            fb.draw(
                vb,
                NoIndices(PrimitiveType::TrianglesList),
                &self.program,
                &uniform! {
                    view_proj: vp,
                    model: model,
                    normal_matrix: nm,
                    eye: [eye.x, eye.y, eye.z],
                },
                &params,
            )
            .map_err(|e| RenderError::draw("the obstacles", e))?;
        }
        drop(fb);
        f(nearest(tex))
    }
}
