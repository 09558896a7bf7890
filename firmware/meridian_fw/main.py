from meridian_fw.app import main  # noqa: I001  (a two-line boot file)
main()
