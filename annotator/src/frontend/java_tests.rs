use super::*;

fn parse(src: &str) -> FileModel {
    JavaFrontend.parse("T.java", src)
}

#[test]
#[ignore]
fn dump() {
    let src = std::fs::read_to_string("/tmp/dump.java").unwrap();
    let mut p = new_parser().unwrap();
    let t = p.parse(&src, None).unwrap();
    println!("{}", t.root_node().to_sexp());
    let m = parse(&src);
    println!("{m:#?}");
}
