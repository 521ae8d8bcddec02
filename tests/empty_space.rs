//! Empty-space skipping in the raymarch, for real on an OpenGL context (Mesa's llvmpipe in
//! CI; a test that cannot get a context fails): the brick grid marks exactly the bricks a
//! trilinear sample can see something in (worked out here by the rule, independently of the
//! shader), it follows each new volume, it counts the flame where the flame is drawn, and
//! drawing with it gives the same pixels, to the bit, as taking every sample.

use plume::camera::OrbitCamera;
use plume::frame::{Frame, Select};
use plume::render::occupancy::{bricks, BRICK};
use plume::render::offscreen::snapshot;
use plume::render::volume::VolumeBox;
use plume::render::{RenderSettings, VolumeRenderer};
use plume::scene::Scene;
use plume::sim::{Dims, Grid};
use std::rc::Rc;

mod common;

/// The pictures' size, pixels.
const SIZE: (u32, u32) = (160, 120);

/// The bricks a sample can see something in, by the rule: a sample inside brick b reads
/// voxels b·BRICK − 1 to (b + 1)·BRICK along each axis (its own and one beyond each face),
/// and sees something where one of them is above 0 or NaN.
fn expected_bricks(values: &[f32], d: Dims) -> Vec<f32> {
    let b = bricks(d);
    let mut out = vec![0.0; b.cells()];
    // (NaN too: it is not ≤ 0)
    let sees = |v: f32| v > 0.0 || v.is_nan();
    for k in 0..b.nz {
        for j in 0..b.ny {
            for i in 0..b.nx {
                let range = |c: usize, n: usize| {
                    (c * BRICK).saturating_sub(1)..=((c + 1) * BRICK).min(n - 1)
                };
                let mut any = false;
                for z in range(k, d.nz) {
                    for y in range(j, d.ny) {
                        for x in range(i, d.nx) {
                            any |= sees(values[d.idx(x, y, z)]);
                        }
                    }
                }
                out[b.idx(i, j, k)] = f32::from(u8::from(any));
            }
        }
    }
    out
}

/// A voxel's place, (x, y, z).
type Voxel = (usize, usize, usize);

fn read_bricks(r: &VolumeRenderer, ctx: &Rc<glium::backend::Context>) -> Vec<f32> {
    let (v, b) = r
        .read_bricks(ctx)
        .expect("read")
        .expect("the bricks are worked out on a context with compute shaders");
    assert_eq!(v.len(), b.cells());
    v
}

#[test]
fn the_bricks_are_exactly_those_a_sample_can_see_something_in() {
    let ctx = common::gl::headless();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    // Not a whole number of bricks along any axis.
    let d = Dims {
        nx: 3 * BRICK + 3,
        ny: 2 * BRICK + 1,
        nz: 2 * BRICK - 1,
    };
    let b = BRICK;
    // Voxels on a brick's first and last rows (seen from the brick before or after too),
    // inside one, on the volume's corners; a NaN counts, a negative value and 0 do not.
    let cases: Vec<Vec<(Voxel, f32)>> = vec![
        vec![((b, 3, 3), 1.0)],
        vec![((b - 1, 3, 3), 1.0)],
        vec![((b + 2, b + 2, 2), 0.5)],
        vec![((2 * b, b, b - 1), 1e-30)],
        vec![((0, 0, 0), 1.0)],
        vec![((d.nx - 1, d.ny - 1, d.nz - 1), 1.0)],
        vec![((b + 1, 1, 1), f32::NAN)],
        vec![((b + 1, 1, 1), -1.0), ((3, b, b), 0.0)],
        vec![((b, b - 1, b), 2.0), ((2 * b + 2, 2 * b, 0), 3.0)],
        vec![],
    ];
    let mut marked = 0.0;
    for case in &cases {
        let mut v = vec![0.0f32; d.cells()];
        for &((x, y, z), value) in case {
            v[d.idx(x, y, z)] = value;
        }
        r.upload(&ctx, &v, d).expect("upload");
        assert!(
            r.skips_empty(),
            "no skipping on a context with compute shaders"
        );
        let got = read_bricks(&r, &ctx);
        assert_eq!(got, expected_bricks(&v, d), "voxels {case:?}");
        marked += got.iter().sum::<f32>();
    }
    // (the cases mark some bricks and leave others: the rule is not trivially all or none)
    assert!(marked > 0.0 && marked < (cases.len() * bricks(d).cells()) as f32);

    // Switched off: nothing is skipped and no grid is offered.
    r.set_empty_skipping(&ctx, false);
    assert!(!r.skips_empty());
    assert!(r.read_bricks(&ctx).expect("read").is_none());
}

/// A slab of flame (hot, no smoke) in a unit box of 16³.
fn flame_only() -> Frame {
    let d = Dims::cube(16);
    let mut f = Frame::empty(Grid::unit(d).expect("ok"), 1, 0.0);
    let mut temperature = vec![0.0; d.cells()];
    let mut flame = vec![0.0; d.cells()];
    for k in 9..11 {
        for j in 2..4 {
            for i in 5..7 {
                temperature[d.idx(i, j, k)] = 1.5;
                flame[d.idx(i, j, k)] = 1.0;
            }
        }
    }
    f.density = Some(vec![0.0; d.cells()]);
    f.temperature = Some(temperature);
    f.flame = Some(flame);
    f
}

#[test]
fn the_bricks_count_the_flame_where_it_is_drawn() {
    let ctx = common::gl::headless();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    let f = flame_only();
    let d = f.grid.dims;
    r.upload_frame(&ctx, &f, 1000.0).expect("upload");
    assert!(r.flame_light().is_some(), "the slab glows");
    let got = read_bricks(&r, &ctx);
    let flame = f.flame.as_ref().expect("flame");
    assert_eq!(got, expected_bricks(flame, d));
    assert!(got.contains(&1.0));
    // And the glow is drawn the same either way.
    let bx = VolumeBox::of_grid(&f.grid);
    let s = RenderSettings::default();
    let shown = same_both_ways(&ctx, &mut r, &around([0.5; 3], 2.0), &bx, &s, "flame");
    assert!(shown > 20, "the flame shows on {shown} pixels");
    // The same frame with its smoke only: no flame drawn, every brick empty.
    let mut smoke_only = f.clone();
    smoke_only.flame = None;
    smoke_only.temperature = None;
    r.upload_frame(&ctx, &smoke_only, 1000.0).expect("upload");
    assert!(read_bricks(&r, &ctx).iter().all(|&v| v == 0.0));
}

/// Asserts that `r`'s volume looks the same, pixel for pixel, skipping empty bricks and
/// taking every sample, from each camera; returns how many pixels show something.
fn same_both_ways(
    ctx: &Rc<glium::backend::Context>,
    r: &mut VolumeRenderer,
    cams: &[OrbitCamera],
    bx: &VolumeBox,
    s: &RenderSettings,
    what: &str,
) -> usize {
    let mut shown = 0;
    for (i, cam) in cams.iter().enumerate() {
        r.set_empty_skipping(ctx, true);
        assert!(r.skips_empty(), "{what}: not skipping");
        let skipped = common::gl::image(ctx, r, cam, bx, s, SIZE);
        r.set_empty_skipping(ctx, false);
        assert!(!r.skips_empty());
        let every = common::gl::image(ctx, r, cam, bx, s, SIZE);
        let differ = skipped
            .rgba
            .chunks(4)
            .zip(every.rgba.chunks(4))
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(differ, 0, "{what}, camera {i}: {differ} pixels differ");
        // (nothing to see: no extinction, no glow)
        let empty = RenderSettings {
            density_scale: 0.0,
            flame_intensity: 0.0,
            ..s.clone()
        };
        let background = common::gl::image(ctx, r, cam, bx, &empty, SIZE);
        shown += skipped
            .rgba
            .chunks(4)
            .zip(background.rgba.chunks(4))
            .filter(|(a, b)| a != b)
            .count();
    }
    r.set_empty_skipping(ctx, true);
    shown
}

fn around(center: [f32; 3], dist: f32) -> Vec<OrbitCamera> {
    [(30.0, 20.0), (-120.0, 45.0), (200.0, -30.0), (0.0, 89.0)]
        .iter()
        .map(|&(yaw, pitch)| OrbitCamera::from_degrees(center, yaw, pitch, dist))
        .collect()
}

#[test]
fn skipping_empty_bricks_changes_no_pixel() {
    let ctx = common::gl::headless();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    // Two small puffs in a box that is not a whole number of bricks, seen from outside and
    // from inside (the eye in an empty brick), jittered, shadowed, lit from the side.
    let d = Dims {
        nx: 37,
        ny: 29,
        nz: 23,
    };
    let grid = Grid::unit(d).expect("grid");
    let mut v = vec![0.0f32; d.cells()];
    // Two puffs, and small blobs strewn over the box (a fixed sequence), many of them on
    // a brick's face where a ray comes in from an empty brick next to it.
    let mut blobs = vec![([9.0, 20.0, 6.0], 3.5f32), ([28.0, 7.0, 15.0], 5.0)];
    let mut rng = common::Rng::new(12345);
    for _ in 0..40 {
        let c = [d.nx, d.ny, d.nz].map(|n| rng.range(0.0, n as f32));
        blobs.push((c, 1.2));
    }
    for (c, rad) in blobs {
        for k in 0..d.nz {
            for j in 0..d.ny {
                for i in 0..d.nx {
                    let r2 = [i, j, k]
                        .iter()
                        .zip(c)
                        .map(|(&x, c)| (x as f32 - c).powi(2))
                        .sum::<f32>();
                    if r2 < rad * rad {
                        v[d.idx(i, j, k)] = 1.0 - r2.sqrt() / rad;
                    }
                }
            }
        }
    }
    r.upload(&ctx, &v, d).expect("upload");
    let bx = VolumeBox::of_grid(&grid);
    let centre = [0, 1, 2].map(|a| (bx.min[a] + bx.max[a]) / 2.0);
    let s = RenderSettings {
        light_dir: [0.7, 0.5, -0.3],
        ..RenderSettings::default()
    };
    let mut cams = around(centre, 2.2);
    cams.push(OrbitCamera::from_degrees(centre, 75.0, 10.0, 0.05));
    let shown = same_both_ways(&ctx, &mut r, &cams, &bx, &s, "puffs and blobs");
    assert!(shown > 500, "the puffs cover only {shown} pixels");
    let bricks_seen = read_bricks(&r, &ctx);
    assert!(
        bricks_seen.contains(&0.0) && bricks_seen.contains(&1.0),
        "the puffs leave no brick empty, or fill none"
    );
}

#[test]
fn skipping_changes_no_pixel_of_the_presets_smoke_fire_and_obstacles() {
    let ctx = common::gl::headless();
    let select = Select {
        density: true,
        temperature: true,
        flame: true,
        ..Select::default()
    };
    for (name, steps) in [("plume", 60), ("campfire", 40), ("chimney", 40)] {
        let scene = Scene::preset(name).expect("preset").with_resolution(32);
        let mut sim = scene.build_simulation().expect("simulation");
        for _ in 0..steps {
            sim.step().expect("finite");
        }
        let f = sim.frame(select);
        let mut r = VolumeRenderer::new(&ctx).expect("shaders");
        let cam = scene.camera(160.0 / 120.0);
        snapshot(
            &ctx,
            &mut r,
            &f,
            &scene.obstacles,
            &scene.render,
            &cam,
            16,
            16,
        )
        .expect("snapshot");
        let bx = VolumeBox::of_grid(&f.grid);
        let centre = [0, 1, 2].map(|a| (bx.min[a] + bx.max[a]) / 2.0);
        let mut cams = around(centre, 2.0);
        cams.push(cam);
        let shown = same_both_ways(&ctx, &mut r, &cams, &bx, &scene.render, name);
        assert!(shown > 200, "{name}: only {shown} pixels show anything");
    }
}
