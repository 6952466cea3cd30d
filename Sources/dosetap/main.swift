import DoseCLI

await DoseTapCLI.main()
