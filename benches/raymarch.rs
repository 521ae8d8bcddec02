//! Criterion benchmark: one full-resolution raymarch (1280×720, off-screen, on the context
//! `render` uses: llvmpipe on a machine without a card) of the default scene's plume after
//! 240 steps at 64³ and 128³: empty bricks stepped over with the light from the cache (as
//! on a card) or marched at every sample of smoke (as on a software renderer), every sample
//! taken (as before either), and the light cache worked out anew for the draw (a new volume:
//! what `render` and the viewer pay once a frame of the simulation).

// criterion_group! generates an undocumented function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use plume::frame::Select;
use plume::render::volume::VolumeBox;
use plume::render::{context, Offscreen, VolumeRenderer};
use plume::scene::Scene;
use plume::sim::Simulation;

fn raymarch(c: &mut Criterion) {
    let ctx = context::headless().expect("an OpenGL context (Mesa's EGL)");
    let mut g = c.benchmark_group("raymarch");
    g.sample_size(10);
    for n in [64usize, 128] {
        let scene = Scene::default().with_resolution(n);
        let mut s = scene.build().expect("builds");
        for _ in 0..240 {
            s.step();
        }
        let f = Simulation::frame(
            &s,
            Select {
                density: true,
                ..Select::default()
            },
        );
        let bx = VolumeBox::of_grid(&f.grid);
        let cam = scene.camera(1280.0 / 720.0);
        let target = Offscreen::new(&ctx, 1280, 720).expect("target");
        let mut r = VolumeRenderer::new(&ctx).expect("shaders");
        r.upload_frame(&ctx, &f, scene.render.kelvin_per_unit)
            .expect("upload");
        let settings = &scene.render;
        for (name, skip, cache) in [
            ("light_cache", true, true),
            ("light_marched", true, false),
            ("every_sample", false, false),
        ] {
            r.set_empty_skipping(&ctx, skip);
            r.set_light_cache(cache);
            g.bench_function(format!("plume_{n}_{name}"), |b| {
                b.iter(|| target.render(&ctx, &r, &cam, &bx, settings).expect("draw"))
            });
        }
        r.set_empty_skipping(&ctx, true);
        r.set_light_cache(true);
        g.bench_function(format!("plume_{n}_light_cache_new_volume"), |b| {
            b.iter(|| {
                r.upload_frame(&ctx, &f, settings.kelvin_per_unit)
                    .expect("upload");
                target.render(&ctx, &r, &cam, &bx, settings).expect("draw")
            })
        });
    }
    g.finish();
}

criterion_group!(benches, raymarch);
criterion_main!(benches);
