use super::*;

fn parse(src: &str) -> FileModel {
    CppFrontend.parse("t.cpp", src)
}

#[test]
fn smoke() {
    let m = parse("class A { void f() {} };");
    assert_eq!(m.classes.len(), 1);
}

#[test]
#[ignore]
fn dump_model() {
    let p = std::env::var("DUMP").unwrap();
    let src = std::fs::read_to_string(&p).unwrap();
    let m = CppFrontend.parse(&p, &src);
    for c in &m.classes {
        println!(
            "CLASS {:?} {} {:?} outer={:?} supers={:?} tp={:?} spec={:?} abs={} na={:?}",
            c.kind,
            c.qname,
            c.name,
            c.outer,
            c.supers,
            c.type_params,
            c.specialization,
            c.is_abstract,
            c.not_annotatable
        );
        for f in &c.fields {
            println!(
                "   FIELD {} {:?} static={} final={}",
                f.name, f.ty, f.is_static, f.is_final
            );
        }
        for x in &c.methods {
            println!(
                "   METHOD {:?} {} ret={:?} na={:?} body={:?}",
                x.kind,
                x.name,
                x.ret.as_ref().map(|r| &r.text),
                x.not_annotatable,
                x.body.map(|b| &src[b.start..b.end])
            );
            println!("      {:?}", x.flags);
            for p in &x.params {
                println!("      PARAM {} {:?} va={}", p.name, p.ty, p.varargs);
            }
        }
    }
    for (o, x) in &m.out_of_class {
        println!(
            "OOC {o} {:?} {} ret={:?} na={:?} span={:?}",
            x.kind,
            x.name,
            x.ret.as_ref().map(|r| &r.text),
            x.not_annotatable,
            &src[x.span.start..x.span.end]
        );
        println!("      {:?}", x.flags);
    }
    for d in &m.diagnostics {
        println!("DIAG {d}");
    }
}
