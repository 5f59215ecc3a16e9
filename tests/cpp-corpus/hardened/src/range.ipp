// Template implementation file (named in the manifest's sources).
template <class T>
T Range<T>::width() const {
    return hi - lo;
}
