// Template implementation file (named in the manifest's sources).
template <class T>
T Box<T>::unbox() const {
    return v_;
}
