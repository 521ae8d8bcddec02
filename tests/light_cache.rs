//! The light cache, for real on an OpenGL context (Mesa's llvmpipe in CI; a test that
//! cannot get a context fails): the smoke drawn with its light from the cache looks as it
//! does marched towards the light at every sample, within a few levels; the texels it leaves
//! out (far from every brick with something in it) are none a sample reads; and it follows
//! the volume, the light, the density scale and the shadow samples from draw to draw.

use plume::camera::OrbitCamera;
use plume::frame::Select;
use plume::render::light::light_dims;
use plume::render::offscreen::snapshot;
use plume::render::volume::VolumeBox;
use plume::render::{Image, RenderSettings, VolumeRenderer};
use plume::scene::Scene;
use plume::sim::{Dims, Grid};
use std::rc::Rc;

mod common;

/// The pictures' size, pixels.
const SIZE: (u32, u32) = (200, 150);

/// The largest difference of a channel between two images, the mean over every channel,
/// and the pixels that differ at all.
fn compare(a: &Image, b: &Image) -> (u8, f64, usize) {
    let mut most = 0u8;
    let mut sum = 0u64;
    let mut differ = 0;
    for (p, q) in a.rgba.chunks(4).zip(b.rgba.chunks(4)) {
        let d = (0..3).map(|c| p[c].abs_diff(q[c])).max().unwrap_or(0);
        most = most.max(d);
        sum += (0..3).map(|c| u64::from(p[c].abs_diff(q[c]))).sum::<u64>();
        differ += usize::from(d > 0);
    }
    (most, sum as f64 / (a.rgba.len() / 4 * 3) as f64, differ)
}

/// A dense block (a sharp shadow edge below it) beside a soft ball, and a lid high over the
/// ball with empty space between (its shadow reaches the ball across empty bricks), in a
/// 40 × 32 × 36 box.
fn block_and_ball() -> (Vec<f32>, Dims) {
    let d = Dims {
        nx: 40,
        ny: 32,
        nz: 36,
    };
    let mut v = vec![0.0f32; d.cells()];
    for k in 0..d.nz {
        for j in 0..d.ny {
            for i in 0..d.nx {
                let inside = (8..20).contains(&i) && (18..24).contains(&j) && (10..26).contains(&k);
                let lid = (22..34).contains(&i) && (28..30).contains(&j) && (12..24).contains(&k);
                let r2 = [i as f32 - 27.0, j as f32 - 8.0, k as f32 - 18.0]
                    .iter()
                    .map(|x| x * x)
                    .sum::<f32>();
                v[d.idx(i, j, k)] = if inside {
                    1.5
                } else if lid {
                    1.0
                } else {
                    (1.0 - r2.sqrt() / 6.0).max(0.0)
                };
            }
        }
    }
    (v, d)
}

fn cameras(bx: &VolumeBox) -> Vec<OrbitCamera> {
    let c = [0, 1, 2].map(|a| (bx.min[a] + bx.max[a]) / 2.0);
    [(30.0, 20.0), (-100.0, 40.0), (160.0, -25.0)]
        .iter()
        .map(|&(yaw, pitch)| OrbitCamera::from_degrees(c, yaw, pitch, 2.0))
        .collect()
}

/// The smoke drawn with the cache against marched at every sample, from each camera, both
/// against the march at 256 samples (near the exact light: `shadow_steps` samples are
/// themselves an approximation); checks the cache is read and what the shadows change.
fn cache_against_march(
    ctx: &Rc<glium::backend::Context>,
    r: &mut VolumeRenderer,
    bx: &VolumeBox,
    s: &RenderSettings,
    what: &str,
) {
    let fine = RenderSettings {
        shadow_steps: 256,
        ..s.clone()
    };
    for (i, cam) in cameras(bx).iter().enumerate() {
        r.set_light_cache(true);
        let cached = common::gl::image(ctx, r, cam, bx, s, SIZE);
        assert!(
            r.light_cache_dims().is_some(),
            "{what}: the cache was not read"
        );
        r.set_light_cache(false);
        let marched = common::gl::image(ctx, r, cam, bx, s, SIZE);
        assert!(r.light_cache_dims().is_none());
        let exact = common::gl::image(ctx, r, cam, bx, &fine, SIZE);
        let unshadowed = common::gl::image(
            ctx,
            r,
            cam,
            bx,
            &RenderSettings {
                shadows: false,
                ..s.clone()
            },
            SIZE,
        );
        r.set_light_cache(true);
        let (most, mean, _) = compare(&cached, &exact);
        let (most_m, mean_m, _) = compare(&marched, &exact);
        let (_, shadows, shaded) = compare(&unshadowed, &exact);
        println!("{what}, camera {i}: against 256 samples: the cache largest {most} mean {mean:.4}, the march largest {most_m} mean {mean_m:.4}; the shadows change {shaded} pixels, mean {shadows:.3}");
        // The shadows matter in the picture, and the cache draws them about as near the
        // exact light as marching at every sample does.
        assert!(
            shaded > 500,
            "{what}, camera {i}: the shadows change {shaded} pixels"
        );
        assert!(
            mean <= 0.05 && mean < 0.03 * shadows,
            "{what}, camera {i}: the cache is off by {mean} a channel on average (the march {mean_m}); the shadows change {shadows}"
        );
        assert!(
            most <= 8,
            "{what}, camera {i}: a channel {most} levels off (the march {most_m})"
        );
    }
}

#[test]
fn the_cache_draws_the_smoke_as_marching_does_within_a_few_levels() {
    let ctx = common::gl::headless();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    let (v, d) = block_and_ball();
    r.upload(&ctx, &v, d).expect("upload");
    let bx = VolumeBox::of_grid(&Grid::unit(d).expect("grid"));
    for light_dir in [[0.0, 1.0, 0.0], [0.6, 0.7, -0.4], [-0.3, -0.2, 1.0]] {
        let s = RenderSettings {
            light_dir,
            density_scale: 30.0,
            ..RenderSettings::default()
        };
        cache_against_march(
            &ctx,
            &mut r,
            &bx,
            &s,
            &format!("block and ball, light {light_dir:?}"),
        );
    }
    common::gl::image(
        &ctx,
        &r,
        &cameras(&bx)[0],
        &bx,
        &RenderSettings::default(),
        SIZE,
    );
    assert_eq!(
        r.light_cache_dims(),
        Some(d),
        "a texel a voxel at this size"
    );

    // The default scene's plume at 48³.
    let scene = Scene::default().with_resolution(48);
    let mut sim = scene.build_simulation().expect("simulation");
    for _ in 0..120 {
        sim.step().expect("finite");
    }
    let f = sim.frame(Select {
        density: true,
        ..Select::default()
    });
    let cam = scene.camera(4.0 / 3.0);
    snapshot(&ctx, &mut r, &f, &[], &scene.render, &cam, 8, 8).expect("snapshot");
    let bx = VolumeBox::of_grid(&f.grid);
    cache_against_march(&ctx, &mut r, &bx, &scene.render, "the plume");
}

#[test]
fn the_texels_left_out_are_none_a_sample_reads() {
    // With the bricks the cache marches only texels near smoke; without them (skipping off)
    // every texel: the pictures are the same to the bit.
    let ctx = common::gl::headless();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    r.set_light_cache(true);
    let (v, d) = block_and_ball();
    r.upload(&ctx, &v, d).expect("upload");
    let bx = VolumeBox::of_grid(&Grid::unit(d).expect("grid"));
    let s = RenderSettings {
        light_dir: [0.5, 0.8, 0.3],
        ..RenderSettings::default()
    };
    for cam in cameras(&bx) {
        r.set_empty_skipping(&ctx, true);
        let near = common::gl::image(&ctx, &r, &cam, &bx, &s, SIZE);
        assert!(r.skips_empty() && r.light_cache_dims().is_some());
        r.set_empty_skipping(&ctx, false);
        let all = common::gl::image(&ctx, &r, &cam, &bx, &s, SIZE);
        assert!(!r.skips_empty() && r.light_cache_dims().is_some());
        let (most, _, differ) = compare(&near, &all);
        assert_eq!(differ, 0, "{differ} pixels differ, by up to {most}");
    }
}

#[test]
fn the_cache_follows_the_volume_the_light_and_the_settings() {
    // Each draw after a change looks as a new renderer's first draw of the same: nothing
    // of the cache before the change is left in the picture.
    let ctx = common::gl::headless();
    let (v, d) = block_and_ball();
    let bx = VolumeBox::of_grid(&Grid::unit(d).expect("grid"));
    let cam = &cameras(&bx)[0];
    let base = RenderSettings {
        light_dir: [0.0, 1.0, 0.0],
        ..RenderSettings::default()
    };
    let mut moved = v.clone();
    moved.rotate_left(d.nx * 3);
    // (a new volume, or none: the settings alone change)
    let changes: Vec<(&str, Option<Vec<f32>>, RenderSettings)> = vec![
        (
            "the light",
            None,
            RenderSettings {
                light_dir: [0.8, 0.3, 0.2],
                ..base.clone()
            },
        ),
        (
            "the density scale",
            None,
            RenderSettings {
                density_scale: 90.0,
                ..base.clone()
            },
        ),
        (
            "the shadow samples",
            None,
            RenderSettings {
                shadow_steps: 16,
                ..base.clone()
            },
        ),
        ("the volume", Some(moved), base.clone()),
    ];
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    r.set_light_cache(true);
    for (what, volume, s) in changes {
        r.upload(&ctx, &v, d).expect("upload");
        let before = common::gl::image(&ctx, &r, cam, &bx, &base, SIZE);
        if let Some(new) = &volume {
            r.upload(&ctx, new, d).expect("upload");
        }
        let after = common::gl::image(&ctx, &r, cam, &bx, &s, SIZE);
        assert!(
            r.light_cache_dims().is_some(),
            "{what}: the cache was not read"
        );
        let mut fresh = VolumeRenderer::new(&ctx).expect("shaders");
        fresh.set_light_cache(true);
        fresh
            .upload(&ctx, volume.as_ref().unwrap_or(&v), d)
            .expect("upload");
        let want = common::gl::image(&ctx, &fresh, cam, &bx, &s, SIZE);
        assert!(fresh.light_cache_dims().is_some());
        assert_eq!(compare(&after, &want).2, 0, "after a change of {what}");
        assert!(compare(&before, &want).2 > 100, "{what}: the change shows");
    }
    // The same volume again, without a new upload: the cache is reused, the picture the same.
    let again = common::gl::image(&ctx, &r, cam, &bx, &base, SIZE);
    let again2 = common::gl::image(&ctx, &r, cam, &bx, &base, SIZE);
    assert_eq!(compare(&again, &again2).2, 0);
}

#[test]
fn large_grids_get_a_texel_every_few_voxels() {
    let d = |nx, ny, nz| Dims { nx, ny, nz };
    assert_eq!(light_dims(d(64, 64, 64)), d(64, 64, 64));
    assert_eq!(light_dims(d(128, 96, 3)), d(128, 96, 3));
    assert_eq!(light_dims(d(256, 384, 256)), d(86, 128, 86));
    assert_eq!(light_dims(d(1024, 512, 200)), d(128, 64, 25));
}
