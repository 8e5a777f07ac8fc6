//! `#[derive(Keys)]`: every scenario key declared once, on the field that
//! holds it. A field's `#[key(...)]` gives its default, what it accepts and
//! its unit; its doc comment is its one line of meaning. The derive writes a
//! `Decl` constant per field (`RadioSpec::TX_RANGE_M`), which the reference,
//! the JSON Schema, the range checks and their errors read, and
//! `Keys::declare`, which lists a table's keys (sub-tables in place).
//!
//! ```ignore
//! #[derive(Keys)]
//! #[keys(table = "radio", default)]
//! pub struct RadioSpec {
//!     /// Range at which frames can still be decoded (sets RXThresh).
//!     #[key(num = 250.0, range = gt(0.0).hint("metres"), unit = "m")]
//!     pub tx_range_m: f64,
//! }
//! ```
//!
//! Field options: the default, one of `num = f64`, `int = u64`, `flag = bool`,
//! `word = "name"` or `def = Def::…` (required, unset, derived); `range =
//! NumRange` (numbers), `ints = (lo, hi)` or `allowed = Allowed::…`; `unit`,
//! `ty` (the type's name where the Rust type does not say it); `like =
//! OTHER_DECL` (the same declaration under this key); `table` (a sub-table:
//! its keys in place), with `given = Type` on an `Option<Sub>` (filled, it is
//! `Given<Type>`, made with `Type::from`) or `list = Type` on an
//! `Option<Vec<Sub>>` that validation fills (`Vec<Type>`, each `Sub::fill`);
//! `skip` (not a key). Struct options: `table = "a.b"` (the keys' prefix;
//! `flows[]` for list entries), `default` (an `impl Default` from the
//! declared defaults) and `filled = Name`.
//!
//! `filled = Name` writes the table as the resolved scenario holds it, so a
//! key is not written a second time there: `Name` has the same fields in the
//! same order (its serialization is the canonical form), every `Option<T>`
//! key, which validation fills, as `T`, and sub-tables as above;
//! `Spec::fill(self)` makes it, naming a key left unfilled. Keys whose
//! absence is itself a setting (`Def::Unset`) have no place there.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote};
use syn::{parse_macro_input, Data, DeriveInput, Expr, Fields, LitStr, Type};

#[proc_macro_derive(Keys, attributes(keys, key))]
pub fn derive_keys(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

#[derive(Default)]
struct FieldKey {
    default: Option<Tokens>,
    allowed: Option<Tokens>,
    unit: Option<LitStr>,
    ty: Option<LitStr>,
    like: Option<Expr>,
    table: bool,
    given: Option<Type>,
    list: Option<Type>,
    skip: bool,
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let mut table = String::new();
    let mut gen_default = false;
    let mut filled_name: Option<syn::Ident> = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("keys")) {
        attr.parse_nested_meta(|m| {
            if m.path.is_ident("table") {
                table = m.value()?.parse::<LitStr>()?.value();
            } else if m.path.is_ident("default") {
                gen_default = true;
            } else if m.path.is_ident("filled") {
                filled_name = Some(m.value()?.parse()?);
            } else {
                return Err(m.error("expected `table = \"...\"`, `default` or `filled = Name`"));
            }
            Ok(())
        })?;
    }
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(input, "Keys derives on structs"));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new_spanned(input, "Keys needs named fields"));
    };
    let mut consts = Vec::new();
    let mut pushes = Vec::new();
    let mut inits = Vec::new();
    let mut filled = Filled::default();
    for f in &fields.named {
        let ident = f.ident.as_ref().expect("named field");
        let fk = field_key(f)?;
        if fk.skip {
            inits.push(quote! { #ident: ::core::default::Default::default() });
            filled.field(f, None, quote! { self.#ident });
            continue;
        }
        let ty = &f.ty;
        if fk.table {
            let inner = table_type(ty);
            pushes.push(quote! { <#inner as crate::scenario::keys::Keys>::declare(out); });
            inits.push(quote! { #ident: ::core::default::Default::default() });
            let key = if table.is_empty() { ident.to_string() } else { format!("{table}.{ident}") };
            match (&fk.given, &fk.list, option_inner(ty)) {
                (Some(g), None, Some(_)) => filled.given(f, g),
                (None, Some(l), Some(_)) => filled.list(f, l, &key, inner),
                (None, None, None) => filled.field(f, None, quote! { self.#ident }),
                _ => filled.error(
                    f,
                    "a sub-table in a `filled` struct is an `Option<Sub>` with `given = Type`, an \
                     `Option<Vec<Sub>>` that validation fills with `list = Type`, or a table always present",
                ),
            }
            continue;
        }
        let cname = format_ident!("{}", ident.to_string().to_uppercase());
        let key = if table.is_empty() { ident.to_string() } else { format!("{table}.{ident}") };
        let doc = doc_of(f);
        let decl = if let Some(like) = &fk.like {
            // The same declaration under this key; a doc comment of its own replaces the meaning.
            let doc = (!doc.is_empty()).then(|| quote! { doc: #doc, });
            quote! { crate::scenario::keys::Decl { key: #key, #doc ..#like } }
        } else {
            let default =
                fk.default.clone().ok_or_else(|| syn::Error::new_spanned(ident, "a key needs its default"))?;
            let allowed =
                fk.allowed.clone().unwrap_or_else(|| quote! { <#ty as crate::scenario::keys::KeyType>::ALLOWED });
            let tyname = fk
                .ty
                .as_ref()
                .map_or_else(|| quote! { <#ty as crate::scenario::keys::KeyType>::TY }, |t| quote! { #t });
            let unit = fk.unit.as_ref().map_or_else(|| quote! { "" }, |u| quote! { #u });
            quote! {
                crate::scenario::keys::Decl {
                    key: #key, ty: #tyname, default: #default, allowed: #allowed, unit: #unit, doc: #doc,
                }
            }
        };
        let unset = fk.default.as_ref().is_some_and(|d| d.to_string().contains("Unset"));
        match option_inner(ty) {
            Some(_) if unset => filled
                .error(f, "a key whose absence is a setting (Unset) has no filled form: resolve this table by hand"),
            Some(inner) => filled.field(f, Some(inner), quote! { crate::scenario::keys::filled(#key, self.#ident)? }),
            None => filled.field(f, None, quote! { self.#ident }),
        }
        consts.push(quote! {
            #[doc = concat!("`", #key, "`: ", #doc)]
            pub const #cname: crate::scenario::keys::Decl = #decl;
        });
        pushes.push(quote! { out.push(Self::#cname); });
        inits.push(quote! { #ident: crate::scenario::keys::FromDef::from_def(&Self::#cname) });
    }
    let default_impl = gen_default.then(|| {
        quote! {
            impl ::core::default::Default for #name {
                fn default() -> Self {
                    #name { #(#inits,)* }
                }
            }
        }
    });
    let filled_impl = match filled_name {
        Some(fname) => filled.expand(name, &fname)?,
        None => quote! {},
    };
    Ok(quote! {
        #filled_impl
        #[allow(dead_code)]
        impl #name {
            #(#consts)*
        }
        impl crate::scenario::keys::Keys for #name {
            fn declare(out: &mut Vec<crate::scenario::keys::Decl>) {
                #(#pushes)*
            }
        }
        #default_impl
    })
}

fn field_key(f: &syn::Field) -> syn::Result<FieldKey> {
    let mut k = FieldKey::default();
    for attr in f.attrs.iter().filter(|a| a.path().is_ident("key")) {
        attr.parse_nested_meta(|m| {
            let p = &m.path;
            let def = |variant: &str, e: Expr| {
                let v = format_ident!("{}", variant);
                quote! { crate::scenario::keys::Def::#v(#e) }
            };
            if p.is_ident("num") {
                k.default = Some(def("Num", m.value()?.parse()?));
            } else if p.is_ident("int") {
                let e: Expr = m.value()?.parse()?;
                k.default = Some(quote! { crate::scenario::keys::Def::Int((#e) as u64) });
            } else if p.is_ident("flag") {
                k.default = Some(def("Bool", m.value()?.parse()?));
            } else if p.is_ident("word") {
                k.default = Some(def("Word", m.value()?.parse()?));
            } else if p.is_ident("def") {
                let e: Expr = m.value()?.parse()?;
                k.default = Some(quote! { { use crate::scenario::keys::Def::*; #e } });
            } else if p.is_ident("range") {
                let e: Expr = m.value()?.parse()?;
                k.allowed = Some(quote! { crate::scenario::keys::Allowed::Num(#e) });
            } else if p.is_ident("ints") {
                let e: Expr = m.value()?.parse()?;
                k.allowed =
                    Some(quote! { { let (lo, hi) = #e; crate::scenario::keys::Allowed::Ints(lo as u64, hi as u64) } });
            } else if p.is_ident("allowed") {
                let e: Expr = m.value()?.parse()?;
                k.allowed = Some(quote! { { use crate::scenario::keys::Allowed::*; #e } });
            } else if p.is_ident("unit") {
                k.unit = Some(m.value()?.parse()?);
            } else if p.is_ident("ty") {
                k.ty = Some(m.value()?.parse()?);
            } else if p.is_ident("like") {
                k.like = Some(m.value()?.parse()?);
            } else if p.is_ident("table") {
                k.table = true;
            } else if p.is_ident("list") {
                k.list = Some(m.value()?.parse()?);
            } else if p.is_ident("given") {
                k.given = Some(m.value()?.parse()?);
            } else if p.is_ident("skip") {
                k.skip = true;
            } else {
                return Err(m.error("unknown key option"));
            }
            Ok(())
        })?;
    }
    Ok(k)
}

/// The field's doc comment as one line.
fn doc_of(f: &syn::Field) -> String {
    let mut lines = Vec::new();
    for attr in &f.attrs {
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if nv.path.is_ident("doc") {
                if let Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = &nv.value {
                    lines.push(s.value().trim().to_string());
                }
            }
        }
    }
    lines.join(" ")
}

/// `Sub`, `Option<Sub>`, `Vec<Sub>` or `Option<Vec<Sub>>`: the table's own type.
fn table_type(ty: &Type) -> &Type {
    if let Type::Path(p) = ty {
        if let Some(seg) = p.path.segments.last() {
            if seg.ident == "Option" || seg.ident == "Vec" {
                if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
                    if let Some(syn::GenericArgument::Type(t)) = a.args.first() {
                        return table_type(t);
                    }
                }
            }
        }
    }
    ty
}

/// The `filled = Name` struct, field by field.
#[derive(Default)]
struct Filled {
    fields: Vec<Tokens>,
    values: Vec<Tokens>,
    errors: Vec<syn::Error>,
}

impl Filled {
    /// A field kept as it is (`inner: None`) or filled from its `Option`.
    fn field(&mut self, f: &syn::Field, inner: Option<&Type>, value: Tokens) {
        let ident = f.ident.as_ref().expect("named field");
        let ty = inner.unwrap_or(&f.ty);
        // The Option's skip_serializing_if has no meaning once filled; a plain
        // field keeps its serde attributes (left out at its default, ...).
        let serde = if inner.is_some() { Vec::new() } else { attrs(f, "serde") };
        let docs = attrs(f, "doc");
        self.fields.push(quote! { #(#docs)* #(#serde)* pub #ident: #ty });
        self.values.push(quote! { #ident: #value });
    }

    /// `Option<Sub>` as `Given<G>` (absent: the table was not given).
    fn given(&mut self, f: &syn::Field, g: &Type) {
        let ident = f.ident.as_ref().expect("named field");
        let docs = attrs(f, "doc");
        self.fields.push(quote! {
            #(#docs)*
            #[serde(skip_serializing_if = "crate::scenario::resolved::Given::is_absent")]
            pub #ident: crate::scenario::resolved::Given<#g>
        });
        self.values.push(quote! {
            #ident: crate::scenario::resolved::Given::from_parsed(self.#ident.map(<#g>::from))
        });
    }

    /// `Option<Vec<Sub>>`, filled by validation, as `Vec<L>` (each `Sub::fill`).
    fn list(&mut self, f: &syn::Field, l: &Type, key: &str, sub: &Type) {
        let ident = f.ident.as_ref().expect("named field");
        let docs = attrs(f, "doc");
        self.fields.push(quote! { #(#docs)* pub #ident: Vec<#l> });
        self.values.push(quote! {
            #ident: crate::scenario::keys::filled(#key, self.#ident)?
                .into_iter()
                .map(<#sub>::fill)
                .collect::<::core::result::Result<Vec<#l>, crate::scenario::ScenarioError>>()?
        });
    }

    fn error(&mut self, f: &syn::Field, msg: &str) {
        self.errors.push(syn::Error::new_spanned(f, msg));
    }

    fn expand(self, spec: &syn::Ident, name: &syn::Ident) -> syn::Result<Tokens> {
        if let Some(mut e) = self.errors.first().cloned() {
            for more in &self.errors[1..] {
                e.combine(more.clone());
            }
            return Err(e);
        }
        let (fields, values) = (self.fields, self.values);
        let doc = format!("[`{spec}`] with every default filled in (`{spec}::fill`): the resolved scenario's form.");
        Ok(quote! {
            #[doc = #doc]
            #[derive(Clone, Debug, PartialEq, serde::Serialize)]
            pub struct #name { #(#fields,)* }
            impl #spec {
                /// This table as the resolved scenario holds it, once validation filled its defaults.
                pub(crate) fn fill(self) -> ::core::result::Result<#name, crate::scenario::ScenarioError> {
                    Ok(#name { #(#values,)* })
                }
            }
        })
    }
}

/// The field's attributes of one kind (`doc`, `serde`).
fn attrs<'a>(f: &'a syn::Field, kind: &str) -> Vec<&'a syn::Attribute> {
    f.attrs.iter().filter(|a| a.path().is_ident(kind)).collect()
}

/// `T` of an `Option<T>`.
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    if seg.ident != "Option" {
        return None;
    }
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => match a.args.first()? {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}
