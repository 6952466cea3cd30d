import DoseCLI

DoseTapCLI.main()
