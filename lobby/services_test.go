package lobby_test

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"
	"testing"
)

// maxServiceMethods is the most exported methods an exported type of
// package lobby has: a type with more is several services (STYLE.md,
// "Services and vocabulary"), to be split by job.
const maxServiceMethods = 20

// TestServicesAreSmall: no exported type of package lobby, struct or
// interface, has more than maxServiceMethods exported methods. It reads
// the package's source, not its test files (which may export hooks for
// tests), so every type is counted, those added later too.
//
// Methods promoted from an embedded field would not be counted: an
// exported struct embeds nothing, which the test checks too.
func TestServicesAreSmall(t *testing.T) {
	bp, err := build.ImportDir(".", 0) // the package's files as go build picks them, no test's
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	methods := make(map[string][]string) // exported type: its exported methods
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil || !d.Name.IsExported() {
					continue
				}
				if recv := receiverName(d.Recv.List[0].Type); ast.IsExported(recv) {
					methods[recv] = append(methods[recv], d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() {
						continue
					}
					switch typ := ts.Type.(type) {
					case *ast.InterfaceType:
						for _, m := range typ.Methods.List {
							for _, name := range m.Names {
								if name.IsExported() {
									methods[ts.Name.Name] = append(methods[ts.Name.Name], name.Name)
								}
							}
						}
					case *ast.StructType:
						for _, field := range typ.Fields.List {
							if len(field.Names) == 0 {
								t.Errorf("%s embeds %s: its promoted methods go uncounted", ts.Name.Name, types.ExprString(field.Type))
							}
						}
					}
				}
			}
		}
	}
	if len(methods) == 0 {
		t.Fatal("no exported method found in package lobby: the test reads nothing")
	}
	for _, typ := range slices.Sorted(maps.Keys(methods)) {
		if ms := methods[typ]; len(ms) > maxServiceMethods {
			slices.Sort(ms)
			t.Errorf("lobby.%s has %d exported methods, more than %d: it is several services\n%s",
				typ, len(ms), maxServiceMethods, strings.Join(ms, ", "))
		}
	}
}

// receiverName returns the name of the type of a method's receiver,
// whether it is T, *T or a generic T[P].
func receiverName(recv ast.Expr) string {
	for {
		switch e := recv.(type) {
		case *ast.StarExpr:
			recv = e.X
		case *ast.IndexExpr:
			recv = e.X
		case *ast.IndexListExpr:
			recv = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}
