//! The node kinds the C++ walk, declarators and macro blanking test, as one enum looked up by
//! kind id (`kit::KindTable`): no string compares on the walk.

use std::sync::OnceLock;

use tree_sitter::Node;

use crate::instrument::frontend::kit::KindTable;
use crate::instrument::model::Lang;

/// A node kind the C++ front end tests (`Other` for the rest, ERROR included).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum K {
    // declarators and names
    PointerDeclarator,
    ReferenceDeclarator,
    ArrayDeclarator,
    InitDeclarator,
    VariadicDeclarator,
    AttributedDeclarator,
    ParenthesizedDeclarator,
    FunctionDeclarator,
    AbstractFunctionDeclarator,
    QualifiedIdentifier,
    OperatorCast,
    DestructorName,
    OperatorName,
    Identifier,
    FieldIdentifier,
    TypeIdentifier,
    TemplateFunction,
    TemplateMethod,
    TemplateType,
    // types
    ClassSpecifier,
    StructSpecifier,
    UnionSpecifier,
    EnumSpecifier,
    DependentType,
    PlaceholderTypeSpecifier,
    Decltype,
    TypeQualifier,
    RefQualifier,
    StorageClassSpecifier,
    // declarations and their parts
    Declaration,
    TypeDefinition,
    FunctionDefinition,
    FriendDeclaration,
    DeclarationList,
    TemplateParameterList,
    BaseClassClause,
    AccessSpecifier,
    ParameterDeclaration,
    OptionalParameterDeclaration,
    VariadicParameterDeclaration,
    DefaultMethodClause,
    DeleteMethodClause,
    CompoundStatement,
    TryStatement,
    Noexcept,
    VirtualSpecifier,
    TrailingReturnType,
    NumberLiteral,
    Comment,
    // tokens
    Inline,
    Virtual,
    Equals,
    Ellipsis,
    AmpAmp,
    // macro blanking: scopes a lone macro may sit in, and places it never does
    FieldDeclarationList,
    TranslationUnit,
    /// Where a macro-like token is never a declaration-level macro (see `macros::REJECT`).
    Reject,
    Other,
}

const NAMES: &[(&str, K)] = &[
    ("pointer_declarator", K::PointerDeclarator),
    ("abstract_pointer_declarator", K::PointerDeclarator),
    ("reference_declarator", K::ReferenceDeclarator),
    ("abstract_reference_declarator", K::ReferenceDeclarator),
    ("array_declarator", K::ArrayDeclarator),
    ("abstract_array_declarator", K::ArrayDeclarator),
    ("init_declarator", K::InitDeclarator),
    ("variadic_declarator", K::VariadicDeclarator),
    ("attributed_declarator", K::AttributedDeclarator),
    ("parenthesized_declarator", K::ParenthesizedDeclarator),
    ("function_declarator", K::FunctionDeclarator),
    (
        "abstract_function_declarator",
        K::AbstractFunctionDeclarator,
    ),
    ("qualified_identifier", K::QualifiedIdentifier),
    ("operator_cast", K::OperatorCast),
    ("destructor_name", K::DestructorName),
    ("operator_name", K::OperatorName),
    ("identifier", K::Identifier),
    ("field_identifier", K::FieldIdentifier),
    ("type_identifier", K::TypeIdentifier),
    ("template_function", K::TemplateFunction),
    ("template_method", K::TemplateMethod),
    ("template_type", K::TemplateType),
    ("class_specifier", K::ClassSpecifier),
    ("struct_specifier", K::StructSpecifier),
    ("union_specifier", K::UnionSpecifier),
    ("enum_specifier", K::EnumSpecifier),
    ("dependent_type", K::DependentType),
    ("placeholder_type_specifier", K::PlaceholderTypeSpecifier),
    ("decltype", K::Decltype),
    ("type_qualifier", K::TypeQualifier),
    ("ref_qualifier", K::RefQualifier),
    ("storage_class_specifier", K::StorageClassSpecifier),
    ("declaration", K::Declaration),
    ("type_definition", K::TypeDefinition),
    ("function_definition", K::FunctionDefinition),
    ("friend_declaration", K::FriendDeclaration),
    ("declaration_list", K::DeclarationList),
    ("template_parameter_list", K::TemplateParameterList),
    ("base_class_clause", K::BaseClassClause),
    ("access_specifier", K::AccessSpecifier),
    ("parameter_declaration", K::ParameterDeclaration),
    (
        "optional_parameter_declaration",
        K::OptionalParameterDeclaration,
    ),
    (
        "variadic_parameter_declaration",
        K::VariadicParameterDeclaration,
    ),
    ("default_method_clause", K::DefaultMethodClause),
    ("delete_method_clause", K::DeleteMethodClause),
    ("compound_statement", K::CompoundStatement),
    ("try_statement", K::TryStatement),
    ("noexcept", K::Noexcept),
    ("virtual_specifier", K::VirtualSpecifier),
    ("trailing_return_type", K::TrailingReturnType),
    ("number_literal", K::NumberLiteral),
    ("comment", K::Comment),
    ("inline", K::Inline),
    ("virtual", K::Virtual),
    ("=", K::Equals),
    ("...", K::Ellipsis),
    ("&&", K::AmpAmp),
    ("field_declaration_list", K::FieldDeclarationList),
    ("translation_unit", K::TranslationUnit),
];

/// Kinds inside which a macro-looking token is never a declaration-level macro.
const REJECT_KINDS: &[&str] = &[
    "compound_statement",
    "parameter_list",
    "argument_list",
    "initializer_list",
    "enumerator_list",
    "template_argument_list",
    "template_parameter_list",
    "condition_clause",
    "field_initializer_list",
    "preproc_arg",
    "preproc_def",
    "preproc_function_def",
    "string_literal",
    "raw_string_literal",
    "char_literal",
    "comment",
];

/// `n`'s kind.
pub(super) fn k(n: Node) -> K {
    static TABLE: OnceLock<KindTable<K>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let mut names = NAMES.to_vec();
            for r in REJECT_KINDS {
                if !names.iter().any(|(n, _)| n == r) {
                    names.push((r, K::Reject));
                }
            }
            KindTable::new(Lang::Cpp, &names, K::Other)
        })
        .of(n)
}

impl K {
    /// A class, struct or union specifier.
    pub(super) fn is_class_spec(self) -> bool {
        matches!(
            self,
            K::ClassSpecifier | K::StructSpecifier | K::UnionSpecifier
        )
    }

    /// A scope a lone macro invocation may stand in.
    pub(super) fn is_scope(self) -> bool {
        matches!(
            self,
            K::FieldDeclarationList | K::DeclarationList | K::TranslationUnit
        )
    }

    /// A kind inside which a macro-looking token is never a declaration-level macro.
    pub(super) fn is_reject(self) -> bool {
        matches!(
            self,
            K::Reject | K::CompoundStatement | K::TemplateParameterList | K::Comment
        )
    }
}
