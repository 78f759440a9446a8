package kernel

import (
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"strings"
	"sync"

	"github.com/traefik/yaegi/interp"
)

// symbolImporter gives go/types the packages of yaegi's symbol tables: each
// compiled package's funcs, vars, consts and types, read from the
// reflect.Values of interp.Exports (yaegi's conventions: a type is a nil
// pointer to it, a var a non-nil pointer to it, a const its value, an
// untyped const a constant.Value). Types are converted once and shared by
// every check of the session. Source packages (yaegi's generic slices, maps
// and cmp, compiled from source by the interpreter) come from go/types
// checking that source, see sourcePackages.
type symbolImporter struct {
	mu      sync.Mutex
	tables  map[string]map[string]reflect.Value // import path -> symbols
	names   map[string]string                   // import path -> package name
	sources map[string][]string                 // import path -> Go source files
	pkgs    map[string]*types.Package
	named   map[reflect.Type]*types.Named
}

// newSymbolImporter indexes the symbol tables (keyed "path/name" as in
// interp.Exports) and the source packages.
func newSymbolImporter(tables []interp.Exports, sources map[string][]string) *symbolImporter {
	im := &symbolImporter{
		tables:  map[string]map[string]reflect.Value{},
		names:   map[string]string{},
		sources: sources,
		pkgs:    map[string]*types.Package{},
		named:   map[reflect.Type]*types.Named{},
	}
	for _, t := range tables {
		for key, syms := range t {
			i := strings.LastIndex(key, "/")
			if i < 0 {
				continue
			}
			p, name := key[:i], key[i+1:]
			if im.tables[p] == nil {
				im.tables[p] = map[string]reflect.Value{}
			}
			for k, v := range syms {
				im.tables[p][k] = v
			}
			im.names[p] = name
		}
	}
	return im
}

// has reports whether a package of that path can be imported.
func (im *symbolImporter) has(path string) bool {
	_, bin := im.tables[path]
	_, src := im.sources[path]
	return bin || src
}

// isSource reports whether the package of that path is compiled from
// source by the interpreter (slices, maps, cmp).
func (im *symbolImporter) isSource(path string) bool {
	_, ok := im.sources[path]
	return ok
}

// Import implements types.Importer.
func (im *symbolImporter) Import(path string) (*types.Package, error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.load(path)
}

func (im *symbolImporter) load(path string) (*types.Package, error) {
	if p, ok := im.pkgs[path]; ok && p.Complete() {
		return p, nil
	}
	if src, ok := im.sources[path]; ok {
		p, err := checkSource(path, src, importerFunc(im.load))
		if err != nil {
			return nil, err
		}
		im.pkgs[path] = p
		return p, nil
	}
	syms, ok := im.tables[path]
	if !ok {
		return nil, &noSymbolsError{path: path}
	}
	pkg := im.pkg(path, im.names[path])
	for name, v := range syms {
		if strings.HasPrefix(name, "_") || pkg.Scope().Lookup(name) != nil {
			continue // interface wrappers; a type already placed by convert
		}
		if obj := im.object(pkg, name, v); obj != nil {
			pkg.Scope().Insert(obj)
		}
	}
	pkg.MarkComplete()
	return pkg, nil
}

// pkg returns the (possibly still incomplete) package of path.
func (im *symbolImporter) pkg(path, name string) *types.Package {
	if p, ok := im.pkgs[path]; ok {
		return p
	}
	if name == "" {
		name = packageName(path)
	}
	p := types.NewPackage(path, name)
	im.pkgs[path] = p
	return p
}

func (im *symbolImporter) object(pkg *types.Package, name string, v reflect.Value) types.Object {
	if !v.IsValid() {
		return nil
	}
	// An untyped constant is held as its go/constant value, which may be a
	// pointer (MakeString returns a *stringVal): read it before the
	// pointer cases below take it for a variable or a type.
	if v.CanInterface() && !v.CanAddr() {
		if cv, ok := v.Interface().(constant.Value); ok {
			return constObject(pkg, name, cv)
		}
	}
	switch {
	case v.CanAddr():
		// A variable: the extracted tables hold reflect.ValueOf(&X).Elem(),
		// so its type is v's own, a pointer type included (os.Stdout is an
		// *os.File, not an os.File).
		return types.NewVar(token.NoPos, pkg, name, im.convert(v.Type()))
	case v.Kind() == reflect.Func:
		sig, ok := im.convert(v.Type()).(*types.Signature)
		if !ok {
			return nil
		}
		return types.NewFunc(token.NoPos, pkg, name, sig)
	case v.Kind() == reflect.Pointer && v.IsNil():
		t := v.Type().Elem()
		tt := im.convert(t)
		if n, ok := tt.(*types.Named); ok && n.Obj().Name() == name && n.Obj().Pkg() == pkg {
			return n.Obj()
		}
		return types.NewTypeName(token.NoPos, pkg, name, tt) // an alias
	case v.Kind() == reflect.Pointer:
		return types.NewVar(token.NoPos, pkg, name, im.convert(v.Type().Elem()))
	}
	var cv constant.Value
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		cv = constant.MakeInt64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		cv = constant.MakeUint64(v.Uint())
	case reflect.Float32, reflect.Float64:
		cv = constant.MakeFloat64(v.Float())
	case reflect.String:
		cv = constant.MakeString(v.String())
	case reflect.Bool:
		cv = constant.MakeBool(v.Bool())
	default:
		return types.NewVar(token.NoPos, pkg, name, im.convert(v.Type()))
	}
	return types.NewConst(token.NoPos, pkg, name, im.convert(v.Type()), cv)
}

// constObject is the untyped constant name of package pkg with value cv;
// nil for a kind go/types has no untyped type of.
func constObject(pkg *types.Package, name string, cv constant.Value) types.Object {
	kinds := map[constant.Kind]types.BasicKind{constant.Bool: types.UntypedBool, constant.String: types.UntypedString,
		constant.Int: types.UntypedInt, constant.Float: types.UntypedFloat, constant.Complex: types.UntypedComplex}
	k, ok := kinds[cv.Kind()]
	if !ok {
		return nil
	}
	return types.NewConst(token.NoPos, pkg, name, types.Typ[k], cv)
}

var basicKinds = map[reflect.Kind]types.BasicKind{
	reflect.Bool: types.Bool, reflect.Int: types.Int, reflect.Int8: types.Int8, reflect.Int16: types.Int16,
	reflect.Int32: types.Int32, reflect.Int64: types.Int64, reflect.Uint: types.Uint, reflect.Uint8: types.Uint8,
	reflect.Uint16: types.Uint16, reflect.Uint32: types.Uint32, reflect.Uint64: types.Uint64,
	reflect.Uintptr: types.Uintptr, reflect.Float32: types.Float32, reflect.Float64: types.Float64,
	reflect.Complex64: types.Complex64, reflect.Complex128: types.Complex128, reflect.String: types.String,
	reflect.UnsafePointer: types.UnsafePointer,
}

// convert turns a compiled type into its go/types counterpart. Named types
// keep their package and their exported methods (pointer receivers for the
// methods only *T has).
func (im *symbolImporter) convert(t reflect.Type) types.Type {
	if t.Name() != "" {
		if t.PkgPath() == "" {
			if t.Name() == "error" && t.Kind() == reflect.Interface {
				return types.Universe.Lookup("error").Type()
			}
			if k, ok := basicKinds[t.Kind()]; ok && t.Name() == t.Kind().String() {
				return types.Typ[k]
			}
		} else {
			return im.convertNamed(t)
		}
	}
	return im.structure(t)
}

func (im *symbolImporter) convertNamed(t reflect.Type) types.Type {
	if n, ok := im.named[t]; ok {
		return n
	}
	pkgName, _, _ := strings.Cut(t.String(), ".")
	pkgName = strings.TrimLeft(pkgName, "*[]")
	pkg := im.pkg(t.PkgPath(), pkgName)
	obj := types.NewTypeName(token.NoPos, pkg, t.Name(), nil)
	n := types.NewNamed(obj, nil, nil)
	im.named[t] = n
	if pkg.Scope().Lookup(t.Name()) == nil && !pkg.Complete() {
		pkg.Scope().Insert(obj)
	}
	n.SetUnderlying(im.structure(t).Underlying())
	if t.Kind() == reflect.Interface {
		return n
	}
	pt := reflect.PointerTo(t)
	for i := 0; i < pt.NumMethod(); i++ {
		m := pt.Method(i)
		_, onValue := t.MethodByName(m.Name)
		var recv types.Type = n
		if !onValue {
			recv = types.NewPointer(n)
		}
		sig := im.signature(m.Type, 1, types.NewVar(token.NoPos, pkg, "", recv))
		n.AddMethod(types.NewFunc(token.NoPos, pkg, m.Name, sig))
	}
	return n
}

// structure converts t's type literal (its underlying structure).
func (im *symbolImporter) structure(t reflect.Type) types.Type {
	switch t.Kind() {
	case reflect.Pointer:
		return types.NewPointer(im.convert(t.Elem()))
	case reflect.Slice:
		return types.NewSlice(im.convert(t.Elem()))
	case reflect.Array:
		return types.NewArray(im.convert(t.Elem()), int64(t.Len()))
	case reflect.Map:
		return types.NewMap(im.convert(t.Key()), im.convert(t.Elem()))
	case reflect.Chan:
		dir := types.SendRecv
		switch t.ChanDir() {
		case reflect.SendDir:
			dir = types.SendOnly
		case reflect.RecvDir:
			dir = types.RecvOnly
		}
		return types.NewChan(dir, im.convert(t.Elem()))
	case reflect.Func:
		return im.signature(t, 0, nil)
	case reflect.Struct:
		var fields []*types.Var
		var tags []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			var pkg *types.Package
			if f.PkgPath != "" {
				pkg = im.pkg(f.PkgPath, "")
			}
			fields = append(fields, types.NewField(token.NoPos, pkg, f.Name, im.convert(f.Type), f.Anonymous))
			tags = append(tags, string(f.Tag))
		}
		return types.NewStruct(fields, tags)
	case reflect.Interface:
		var methods []*types.Func
		for i := 0; i < t.NumMethod(); i++ {
			m := t.Method(i)
			var pkg *types.Package
			if m.PkgPath != "" {
				pkg = im.pkg(m.PkgPath, "")
			}
			methods = append(methods, types.NewFunc(token.NoPos, pkg, m.Name, im.signature(m.Type, 0, nil)))
		}
		return types.NewInterfaceType(methods, nil).Complete()
	}
	if k, ok := basicKinds[t.Kind()]; ok {
		return types.Typ[k]
	}
	return types.Typ[types.Invalid]
}

// signature converts a func type, skipping its first skip parameters (the
// receiver of a method value's type).
func (im *symbolImporter) signature(t reflect.Type, skip int, recv *types.Var) *types.Signature {
	var params, results []*types.Var
	for i := skip; i < t.NumIn(); i++ {
		params = append(params, types.NewParam(token.NoPos, nil, "", im.convert(t.In(i))))
	}
	for i := 0; i < t.NumOut(); i++ {
		results = append(results, types.NewParam(token.NoPos, nil, "", im.convert(t.Out(i))))
	}
	return types.NewSignatureType(recv, nil, nil, types.NewTuple(params...), types.NewTuple(results...), t.IsVariadic())
}

// importerFunc adapts a func to types.Importer.
type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// noSymbolsError is the import of a package the session has no symbols for.
type noSymbolsError struct{ path string }

func (e *noSymbolsError) Error() string { return "no symbols for package " + e.path }
