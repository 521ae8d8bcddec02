//! A refactor changes no result: the density, temperature and velocity of every preset after
//! 100 steps at 32³ hash to the values recorded before the architecture change (issue 12).
//! If a change is *meant* to alter the physics, re-record them (the failure message prints the
//! new values) and say so in the commit.

use plume::scene::Scene;

/// FNV-1a over the bit patterns of the fields, in a fixed order.
fn fnv(h: &mut u64, data: &[f32]) {
    for x in data {
        for b in x.to_bits().to_le_bytes() {
            *h ^= u64::from(b);
            *h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

fn hashes(name: &str) -> [u64; 3] {
    let scene = Scene::preset(name)
        .expect("preset exists")
        .with_resolution(32);
    let mut s = scene.build().expect("preset builds");
    for _ in 0..100 {
        s.try_step().expect("preset stays finite");
    }
    let mut d = 0xcbf2_9ce4_8422_2325u64;
    fnv(&mut d, s.density());
    let mut t = 0xcbf2_9ce4_8422_2325u64;
    fnv(&mut t, s.temperature());
    let mut v = 0xcbf2_9ce4_8422_2325u64;
    for a in 0..3 {
        fnv(&mut v, s.velocity(a));
    }
    [d, t, v]
}

/// (preset, [density, temperature, velocity]) recorded at commit d64e796.
const RECORDED: [(&str, [u64; 3]); 4] = [
    (
        "plume",
        [0x4d5edf7e978f57d5, 0xca3b3fb7d3c7e394, 0xbbb260bc85c1162d],
    ),
    (
        "jets",
        [0x76118b2564ae6142, 0x40370cccd60dee5b, 0xb66dcf0b6b221ff6],
    ),
    (
        "vortex_ring",
        [0x3b8f86058642e0d9, 0xc74b47c8c74a2325, 0xde69bd6ad5d37601],
    ),
    (
        "wind_tunnel",
        [0x72214d1f0980730, 0x8f6955bf94ec2325, 0xbc90d9eeadb9d9e],
    ),
];

#[test]
fn presets_hash_as_recorded_after_100_steps_at_32() {
    let names = Scene::preset_names();
    assert_eq!(
        names.len(),
        RECORDED.len(),
        "every preset has a recorded hash"
    );
    let mut wrong = Vec::new();
    for (name, want) in RECORDED {
        assert!(names.contains(&name), "preset {name} still exists");
        let got = hashes(name);
        println!(
            "(\"{name}\", [{:#x}, {:#x}, {:#x}]),",
            got[0], got[1], got[2]
        );
        if got != want {
            wrong.push(name);
        }
    }
    assert!(
        wrong.is_empty(),
        "fields changed for presets {wrong:?} (new values printed above)"
    );
}
