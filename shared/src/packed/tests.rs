use super::*;

#[test]
fn rows_pack_to_the_bytes_worked_out_by_hand() {
    // Tenths: [0, 356, 569] and [0, 363, 593]; steps along the row: [0, 356, 213] and
    // [0, 363, 230]; one run of 2 rows of 3 → zigzag 2, 4, 6 = C E G; column 0: 0, 0 =
    // A A; column 1: 356 → 712 = 8 + 32·22 = o W, then 363 - 356 = 7 → 14 = O; column 2:
    // 213 → 426 = 10 + 32·13 = q N, then 230 - 213 = 17 → 34 = 2 + 32·1 = i B.
    let rows = vec![vec![0.0, 35.6, 56.9], vec![0.0, 36.3, 59.3]];
    let packed = pack_rows(&rows).unwrap();
    assert_eq!(packed, "CEGAAoWOqNiB");
    assert_eq!(unpack_rows(&packed).unwrap(), rows);
}

#[test]
fn ragged_rows_and_negative_steps_come_back_exactly() {
    // An irregular connection (fewer moments) between regular ones, server moments
    // before the client's start, CPU time standing still.
    let rows = vec![
        vec![42.1, 70.9, 828.0, 849.2, 1041.2, 1065.5],
        vec![-3.5, 0.0, 0.0],
        vec![42.9, 73.2, 851.0, 871.4, 1073.1, 1105.2],
        vec![42.9, 73.2, 851.0, 871.4, 1073.1, 1105.2, 2000.0],
    ];
    assert_eq!(unpack_rows(&pack_rows(&rows).unwrap()).unwrap(), rows);
}

#[test]
fn samples_pack_as_whole_ns_steps() {
    // 0.001 µs = 1 ns, then 0 → steps 1, -1 → zigzag 2, 1 → digits C, B.
    assert_eq!(pack_samples(&[0.001, 0.0]).unwrap(), "CB");
    let samples = vec![1035.573, 1029.46, 1053.196, 0.0, 1e9, 283.121];
    assert_eq!(
        unpack_samples(&pack_samples(&samples).unwrap()).unwrap(),
        samples
    );
}

#[test]
fn values_the_packing_cannot_carry_exactly_stay_plain() {
    assert_eq!(pack_samples(&[1.0001]), None);
    assert_eq!(pack_samples(&[f64::NAN]), None);
    assert_eq!(pack_rows(&[vec![0.05]]), None);
    assert_eq!(pack_rows(&[vec![]]), None, "an empty row");
    #[derive(Serialize, serde::Deserialize, PartialEq, Debug)]
    struct S {
        #[serde(with = "samples")]
        s: Vec<f64>,
        #[serde(with = "rows")]
        r: Vec<Vec<f64>>,
    }
    let odd = S {
        s: vec![1.0001, 2.0],
        r: vec![vec![0.05, 1.0]],
    };
    let text = serde_json::to_string(&odd).unwrap();
    assert_eq!(text, r#"{"s":[1.0001,2.0],"r":[[0.05,1.0]]}"#);
    assert_eq!(serde_json::from_str::<S>(&text).unwrap(), odd);
    let even = S {
        s: vec![1.5, 2.0],
        r: vec![vec![0.5, 1.0]],
    };
    let text = serde_json::to_string(&even).unwrap();
    assert!(!text.contains('['), "{text}");
    assert_eq!(serde_json::from_str::<S>(&text).unwrap(), even);
    let empty = S {
        s: vec![],
        r: vec![],
    };
    assert_eq!(serde_json::to_string(&empty).unwrap(), r#"{"s":[],"r":[]}"#);
}

#[test]
fn broken_packed_text_is_an_error_not_a_panic_or_a_huge_allocation() {
    assert!(unpack_samples("A=")
        .unwrap_err()
        .contains("is not a base64 digit"));
    assert!(unpack_samples("g")
        .unwrap_err()
        .contains("ends inside a number"));
    // One run of 2^62 rows of 2^62 moments, in a few digits.
    let mut huge = String::new();
    for v in [1, 1 << 62, 1 << 62] {
        codec::put(&mut huge, v);
    }
    assert!(unpack_rows(&huge).unwrap_err().contains("more values than"));
    assert!(unpack_rows("B").unwrap_err().contains("negative"));
    // A valid packing with a digit too many.
    let extra = pack_rows(&[vec![1.0]]).unwrap() + "A";
    assert!(unpack_rows(&extra)
        .unwrap_err()
        .contains("1 digits after the last value"));
    // Steps that add up past 64 bits.
    let mut over = String::new();
    for v in [i64::MAX, i64::MAX] {
        codec::put(&mut over, v);
    }
    assert!(unpack_samples(&over).unwrap_err().contains("over 64 bits"));
}
